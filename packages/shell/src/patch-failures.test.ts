import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createShellTool, type ShellToolConfig } from "./index.js";
import { sessionFor } from "./test-support/kernel.js";
import { useWorkspace } from "./test-support/workspace.js";

/** A diff of `path` whose context line does not match the file, so every patch tool refuses it. */
function staleDiff(path: string): string {
  return `--- a/${path}\n+++ b/${path}\n@@ -1,2 +1,2 @@\n old context\n-gone\n+new\n`;
}

function goodDiff(path: string): string {
  return `--- a/${path}\n+++ b/${path}\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n`;
}

function patchWorkspace(config: Partial<ShellToolConfig> = {}) {
  const workspace = useWorkspace();
  mkdirSync(`${workspace}/src`);
  writeFileSync(`${workspace}/src/a.txt`, "one\ntwo\n");
  writeFileSync(`${workspace}/src/b.txt`, "one\ntwo\n");
  writeFileSync(`${workspace}/a.diff`, staleDiff("src/a.txt"));
  writeFileSync(`${workspace}/b.diff`, staleDiff("src/b.txt"));
  writeFileSync(`${workspace}/good.diff`, goodDiff("src/b.txt"));
  const { session, audit } = sessionFor(createShellTool({ workspace, ...config }));
  const run = async (command: string) =>
    (await session.call({ tool: "shell_run", args: { command } })).result;
  return { workspace, session, audit, run };
}

describe("a second failed shell patch of the same path in one prompt ends the turn (seed 001 §4d)", () => {
  it("counts patch, then git apply, of the same file: attempt 1, then a terminating attempt 2", async () => {
    const { run, audit } = patchWorkspace();
    const first = await run("patch -p1 < a.diff");
    expect(first).toMatchObject({
      ok: false,
      error: {
        code: "TOOL_FAILED",
        details: {
          exitCode: 1,
          mutationFailureKind: "patch",
          mutationFailureAttempt: 1,
          patchTool: "patch",
          patchTargets: ["src/a.txt"],
        },
      },
    });
    expect(first.ok ? undefined : first.error.terminate).toBeUndefined();
    expect(audit.records.at(-1)?.notes).toMatchObject({
      mutationFailureKind: "patch",
      mutationFailureAttempt: 1,
      terminate: false,
      exitCode: 1,
    });

    const second = await run("git apply a.diff");
    expect(second).toMatchObject({
      ok: false,
      error: {
        code: "TOOL_FAILED",
        terminate: true,
        details: { mutationFailureAttempt: 2, patchTool: "git apply", patchTargets: ["src/a.txt"] },
      },
    });
    expect(second.ok ? "" : second.error.message).toContain(
      "second failed patch of src/a.txt in this prompt",
    );
    expect(audit.records.at(-1)?.notes).toMatchObject({ mutationFailureAttempt: 2, terminate: true });
  });

  it("counts each path on its own, and a new prompt starts the count over", async () => {
    const { run, session } = patchWorkspace();
    expect(await run("git apply a.diff")).toMatchObject({
      error: { details: { mutationFailureAttempt: 1 } },
    });
    expect(await run("git apply b.diff")).toMatchObject({
      error: { details: { mutationFailureAttempt: 1 } },
    });
    session.beginPrompt();
    const again = await run("git apply a.diff");
    expect(again).toMatchObject({ error: { details: { mutationFailureAttempt: 1 } } });
    expect(again.ok ? undefined : again.error.terminate).toBeUndefined();
  });

  it("finds the targets in a here-document, after git -C, patch -d and -p, and in apply_patch's envelope", async () => {
    const { run, workspace } = patchWorkspace();
    const heredoc = `git apply <<'EOF'\n${staleDiff("src/b.txt")}EOF`;
    expect(await run(heredoc)).toMatchObject({ error: { details: { patchTargets: ["src/b.txt"] } } });
    writeFileSync(`${workspace}/src/inner.diff`, staleDiff("a.txt"));
    expect(await run("git -C src apply inner.diff")).toMatchObject({
      error: { details: { patchTool: "git apply", patchTargets: ["src/a.txt"] } },
    });
    expect(await run("patch -d src -p1 -i inner.diff")).toMatchObject({
      error: { details: { patchTool: "patch", patchTargets: ["src/a.txt"], mutationFailureAttempt: 2 } },
    });
    writeFileSync(`${workspace}/apply_patch`, "#!/bin/sh\nexit 1\n");
    chmodSync(`${workspace}/apply_patch`, 0o755);
    const envelope =
      "./apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: docs/c.md\n@@\n-x\n+y\n*** End Patch\nEOF";
    expect(await run(envelope)).toMatchObject({
      error: {
        details: { patchTool: "apply_patch", patchTargets: ["docs/c.md"], mutationFailureAttempt: 1 },
      },
    });
    // patch's explicit target file wins over the headers; an unreadable patch file names itself.
    expect(await run("patch src/b.txt missing.diff")).toMatchObject({
      error: { details: { patchTargets: ["src/b.txt"], mutationFailureAttempt: 2 } },
    });
    expect(await run("git apply missing.diff")).toMatchObject({
      error: { details: { patchTargets: ["missing.diff"], mutationFailureAttempt: 1 } },
    });
  });

  it("reads a patch file in the scratch root, but none outside the workspace and scratch", async () => {
    const scratch = useWorkspace("pablo-scratch-");
    const outside = useWorkspace("pablo-outside-");
    writeFileSync(`${scratch}/fix.diff`, staleDiff("src/a.txt"));
    writeFileSync(`${outside}/fix.diff`, staleDiff("src/a.txt"));
    const { run } = patchWorkspace({ scratchDir: scratch });
    expect(await run(`git apply ${scratch}/fix.diff`)).toMatchObject({
      error: { details: { patchTargets: ["src/a.txt"] } },
    });
    expect(await run(`git apply ${outside}/fix.diff`)).toMatchObject({
      error: { details: { patchTargets: [`${outside}/fix.diff`] } },
    });
  });

  it("does not count a patch that applied, a failure of another command, or a patch earlier in a list", async () => {
    const { run, workspace } = patchWorkspace();
    expect(await run("git apply good.diff")).toMatchObject({ ok: true });
    expect(readFileSync(`${workspace}/src/b.txt`, "utf8")).toBe("one\nTWO\n");
    for (const command of [
      "echo patch -p1 a.diff; false",
      "grep 'git apply' a.diff",
      "git status --porcelain patch",
      "git apply a.diff; true",
      "git apply a.diff && false",
      "printf 'git apply a.diff' | sh -c 'exit 3'",
    ]) {
      const result = await run(command);
      expect(JSON.stringify(result), command).not.toContain("mutationFailure");
    }
    // Two failures, yet the first recognised one in this prompt.
    expect(await run("git apply a.diff")).toMatchObject({
      error: { details: { mutationFailureAttempt: 1 } },
    });
  });
});
