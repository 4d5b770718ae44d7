import { procProcessControl } from "../proc-processes.js";
import type { RunRequest } from "../run-process.js";

/** A runProcess request for `sh -c "echo hi"`-like runs with short bounds; `overrides` replace fields. */
export function runRequest(executable: string, cwd: string, overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    executable,
    args: ["-c", "echo hi"],
    cwd,
    env: { PATH: "/usr/bin:/bin", PABLO_SHELL_RUN: "m" },
    marker: "PABLO_SHELL_RUN=m",
    timeoutMs: 5_000,
    maxOutputBytes: 4096,
    signal: new AbortController().signal,
    onOutput: () => undefined,
    control: procProcessControl(),
    killGraceMs: 100,
    cleanupMs: 1_000,
    ...overrides,
  };
}
