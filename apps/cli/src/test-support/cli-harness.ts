import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { onTestFinished } from "vitest";
import { run } from "../cli.js";
import type { Io } from "../output.js";

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A scratch workspace and state directory, removed when the test finishes. */
export function useSandbox(files: Record<string, string> = {}): {
  root: string;
  workspace: string;
  state: string;
  write(path: string, text: string): string;
} {
  const root = mkdtempSync(join(tmpdir(), "pablo-cli-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, "work");
  const state = join(root, "state");
  mkdirSync(workspace);
  const write = (path: string, text: string) => {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
    return full;
  };
  for (const [path, text] of Object.entries(files)) write(join("work", path), text);
  return { root, workspace, state, write };
}

/** An `Io` that captures output, with a clean environment whose state directory is the sandbox's. */
export function captureIo(
  sandbox: { workspace: string; state: string },
  options: { env?: Record<string, string>; signal?: AbortSignal } = {},
): { io: Io; output(): { stdout: string; stderr: string } } {
  let stdout = "";
  let stderr = "";
  const io: Io = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stdin: Readable.from([]),
    isTTY: false,
    cwd: sandbox.workspace,
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: sandbox.state,
      XDG_STATE_HOME: sandbox.state,
      ...options.env,
    },
    signal: options.signal ?? new AbortController().signal,
  };
  return { io, output: () => ({ stdout, stderr }) };
}

/** Runs the CLI in-process with captured output and a clean environment. */
export async function pablo(
  argv: string[],
  sandbox: { workspace: string; state: string },
  env: Record<string, string> = {},
): Promise<CliResult> {
  const { io, output } = captureIo(sandbox, { env });
  const code = await run(argv, io);
  return { code, ...output() };
}
