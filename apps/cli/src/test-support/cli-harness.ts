import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { onTestFinished } from "vitest";
import { run } from "../cli.js";

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

/** Runs the CLI in-process with captured output and a clean environment. */
export async function pablo(
  argv: string[],
  sandbox: { workspace: string; state: string },
  env: Record<string, string> = {},
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, {
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
      ...env,
    },
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}
