import { describe, expect, it } from "vitest";
import { procProcessControl } from "./index.js";
import { runProcess } from "./run-process.js";
import { useWorkspace } from "./test-support/workspace.js";

function request(executable: string, cwd: string) {
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
  };
}

describe("runProcess", () => {
  it("reports an executable or directory that cannot be started as spawn-failed, with nothing left open", async () => {
    const cwd = useWorkspace();
    const missing = await runProcess(request("/nonexistent/sh", cwd));
    expect(missing).toMatchObject({ end: { kind: "spawn-failed", code: "ENOENT" }, survivors: [] });
    const gone = await runProcess(request("/bin/sh", `${cwd}/vanished`));
    expect(gone.end).toMatchObject({ kind: "spawn-failed", code: "ENOENT" });
  });

  it("captures the output of a run that exits", async () => {
    const outcome = await runProcess(request("/bin/sh", useWorkspace()));
    expect(outcome).toMatchObject({
      end: { kind: "exited", exitCode: 0, signal: null },
      stdout: { text: "hi\n", totalBytes: 3, droppedBytes: 0 },
      survivors: [],
      ended: 0,
    });
  });
});
