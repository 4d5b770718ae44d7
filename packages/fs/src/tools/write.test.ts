import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition, ToolResult } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { createFsTools } from "../create-fs-tools.js";
import { createLocalFs } from "../port/local.js";
import { directContext } from "../test-support/context.js";
import { code, data, fsHarness, useTempDir, writeTree } from "../test-support/harness.js";
import { hookedPort } from "../test-support/port-hooks.js";
import { PORTS, portWorkspace } from "../test-support/ports.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

interface Written {
  path: string;
  root: string;
  created: boolean;
  revision: string;
}

describe.each(PORTS)("fs.write revisions on the %s port", (kind) => {
  it("creates only if absent, replaces only at the current revision, and reports the current one", async () => {
    const w = portWorkspace(kind);
    w.write("a.txt", "one\n");
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    const exists = await h.call("fs_write", { path: "a.txt", content: "x", expected_revision: null });
    expect(code(exists)).toBe("REVISION_CONFLICT");
    expect(!exists.ok && exists.error.details?.["current_revision"]).toBe(sha256("one\n"));
    const stale = await h.call("fs_write", {
      path: "a.txt",
      content: "x",
      expected_revision: sha256("zero\n"),
    });
    expect(code(stale)).toBe("REVISION_CONFLICT");
    expect(w.read("a.txt")).toBe("one\n");
    const absent = await h.call("fs_write", {
      path: "b.txt",
      content: "x",
      expected_revision: sha256("one\n"),
    });
    expect(code(absent)).toBe("REVISION_CONFLICT");
    expect(code(await h.call("fs_write", { path: "a.txt", content: "x" }))).toBe("INVALID_ARGUMENT");

    const replaced = await h.call("fs_write", {
      path: "a.txt",
      content: "two\n",
      expected_revision: sha256("one\n"),
    });
    expect(replaced.committed).toBe(true);
    expect(data<Written>(replaced)).toMatchObject({
      path: "a.txt",
      created: false,
      revision: sha256("two\n"),
    });
    const created = data<Written>(
      await h.call("fs_write", { path: "new/dir/c.txt", content: "c", expected_revision: null }),
    );
    expect(created).toMatchObject({ path: "new/dir/c.txt", created: true });
    expect(w.read("a.txt")).toBe("two\n");
    expect(w.read("new/dir/c.txt")).toBe("c");
  });

  it("refuses to write over a directory and content over the byte quota", async () => {
    const w = portWorkspace(kind);
    w.write("dir/x.txt", "x");
    const h = await fsHarness({ workspace: w.ws, io: w.io, options: { quotas: { file_bytes: 3 } } });
    expect(code(await h.call("fs_write", { path: "dir", content: "x", expected_revision: null }))).toBe(
      "INVALID_ARGUMENT",
    );
    expect(code(await h.call("fs_write", { path: "y.txt", content: "four", expected_revision: null }))).toBe(
      "LIMIT_EXCEEDED",
    );
    expect(w.read("y.txt")).toBeUndefined();
  });

  it('with revisions: "tracked", lets a write omit the revision only for a file read and unchanged since', async () => {
    const w = portWorkspace(kind);
    w.write("read.txt", "r\n");
    w.write("unread.txt", "u\n");
    const h = await fsHarness({ workspace: w.ws, io: w.io, options: { revisions: "tracked" } });
    const unread = await h.call("fs_write", { path: "unread.txt", content: "x" });
    expect(code(unread)).toBe("REVISION_CONFLICT");
    expect(!unread.ok && unread.error.details?.["reason"]).toBe("not-read");
    data(await h.call("fs_read", { path: "read.txt" }));
    data(await h.call("fs_write", { path: "read.txt", content: "r2\n" }));
    // Its own write counts as seen, so a second write needs no new read.
    data(await h.call("fs_write", { path: "read.txt", content: "r3\n" }));
    w.write("read.txt", "changed by someone else\n");
    const changed = await h.call("fs_write", { path: "read.txt", content: "x" });
    expect(!changed.ok && changed.error.details?.["reason"]).toBe("changed");
    expect(w.read("read.txt")).toBe("changed by someone else\n");
    expect(data<Written>(await h.call("fs_write", { path: "fresh.txt", content: "f" })).created).toBe(true);
  });
});

describe("fs.write installs atomically", () => {
  function tempFiles(dir: string): string[] {
    return readdirSync(dir).filter((name) => name.startsWith(".pablo-"));
  }

  it("keeps the file's permission bits", async () => {
    const ws = useTempDir();
    writeTree(ws, { "run.sh": "#!/bin/sh\n" });
    const { chmodSync } = await import("node:fs");
    chmodSync(join(ws, "run.sh"), 0o750);
    const h = await fsHarness({ workspace: ws });
    data(
      await h.call("fs_write", {
        path: "run.sh",
        content: "#!/bin/sh\necho hi\n",
        expected_revision: sha256("#!/bin/sh\n"),
      }),
    );
    expect(statSync(join(ws, "run.sh")).mode & 0o7777).toBe(0o750);
  });

  it("re-checks the revision before the rename: a concurrent change wins and no temporary file is left", async () => {
    const ws = useTempDir();
    writeTree(ws, { "a.txt": "one\n" });
    const io = hookedPort(createLocalFs(), {
      after: { sync: () => writeFileSync(join(ws, "a.txt"), "someone else\n") },
    });
    const h = await fsHarness({ workspace: ws, io });
    const result = await h.call("fs_write", {
      path: "a.txt",
      content: "mine\n",
      expected_revision: sha256("one\n"),
    });
    expect(code(result)).toBe("REVISION_CONFLICT");
    expect(!result.ok && result.error.details?.["current_revision"]).toBe(sha256("someone else\n"));
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("someone else\n");
    expect(tempFiles(ws)).toEqual([]);
  });

  it("never replaces a file created by someone else between the check and the install", async () => {
    const ws = useTempDir();
    const io = hookedPort(createLocalFs(), {
      after: { sync: () => writeFileSync(join(ws, "new.txt"), "theirs\n", { flag: "wx" }) },
    });
    const h = await fsHarness({ workspace: ws, io });
    const result = await h.call("fs_write", { path: "new.txt", content: "mine\n", expected_revision: null });
    expect(code(result)).toBe("REVISION_CONFLICT");
    expect(readFileSync(join(ws, "new.txt"), "utf8")).toBe("theirs\n");
    expect(tempFiles(ws)).toEqual([]);
  });

  it("re-checks policy right before the rename; a denial leaves the original, no temporary file and no new directories", async () => {
    const ws = useTempDir();
    writeTree(ws, { "a.txt": "one\n" });
    const tools = await createFsTools({ workspace: ws });
    const write = tools.find((t) => t.name === "fs.write") as ToolDefinition;
    const seen: string[] = [];
    const ctx = directContext({
      authorize: (accesses) => {
        seen.push(...accesses.map((a) => ("path" in a ? `${a.dimension} ${a.path} ${a.root}` : a.dimension)));
        return { verdict: "deny", layer: "late", rule: "late.deny", reason: "policy changed" };
      },
    });
    const replaced = await write.execute(
      { path: "a.txt", content: "two\n", expected_revision: sha256("one\n") },
      ctx,
    );
    expect(code(replaced)).toBe("TOOL_DENIED");
    expect(!replaced.ok && replaced.error.details).toMatchObject({ layer: "late", rule: "late.deny" });
    expect(seen).toEqual([`fs.write ${ws}/a.txt workspace`]);
    const created = await write.execute({ path: "x/y/z.txt", content: "z", expected_revision: null }, ctx);
    expect(code(created)).toBe("TOOL_DENIED");
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(ws, "x"))).toBe(false);
    expect(tempFiles(ws)).toEqual([]);
  });

  it("is cancelled before the rename without touching the original", async () => {
    const ws = useTempDir();
    writeTree(ws, { "a.txt": "one\n" });
    const controller = new AbortController();
    const io = hookedPort(createLocalFs(), { after: { write: () => controller.abort() } });
    const h = await fsHarness({ workspace: ws, io });
    const result = await h.call(
      "fs_write",
      { path: "a.txt", content: "two\n", expected_revision: sha256("one\n") },
      controller.signal,
    );
    expect(code(result)).toBe("TOOL_CANCELLED");
    expect(result.committed).toBeUndefined();
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\n");
    expect(tempFiles(ws)).toEqual([]);
  });

  it("stays committed when cancellation arrives after the rename", async () => {
    const ws = useTempDir();
    writeTree(ws, { "a.txt": "one\n" });
    const controller = new AbortController();
    const io = hookedPort(createLocalFs(), { after: { rename: () => controller.abort() } });
    const h = await fsHarness({ workspace: ws, io });
    const result: ToolResult = await h.call(
      "fs_write",
      { path: "a.txt", content: "two\n", expected_revision: sha256("one\n") },
      controller.signal,
    );
    expect(result.ok).toBe(true);
    expect(result.committed).toBe(true);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("two\n");
    expect(h.audit.records.at(-1)).toMatchObject({ ok: true, committed: true });
  });
});

describe("protected components", () => {
  it.each([
    ".git/config",
    ".git/hooks/pre-commit",
    ".GIT/HEAD",
    "sub/.git",
    ".git.",
    ".pablo/state.json",
    "vendor/Secrets/x",
  ])("refuses fs.write and fs.edit of %s before anything runs, but not fs.read", async (path) => {
    const ws = useTempDir();
    writeTree(ws, { [path]: "original\n" });
    const h = await fsHarness({ workspace: ws, options: { protected: ["secrets"] } });
    const write = await h.call("fs_write", { path, content: "x", expected_revision: sha256("original\n") });
    expect(code(write)).toBe("TOOL_DENIED");
    expect(h.audit.records.at(-1)).toMatchObject({ decision: "deny", rule: "fs.protected" });
    expect(!write.ok && write.error.details?.["rule"]).toBe("fs.protected");
    const edit = await h.call("fs_edit", {
      path,
      old_string: "original",
      new_string: "x",
      expected_revision: sha256("original\n"),
    });
    expect(code(edit)).toBe("TOOL_DENIED");
    expect(readFileSync(join(ws, path), "utf8")).toBe("original\n");
    expect(data<{ content: string }>(await h.call("fs_read", { path })).content).toBe("original\n");
  });

  it("lets a grant, by rule ID, lift the protection for its path only", async () => {
    const ws = useTempDir();
    writeTree(ws, { ".git/hooks/pre-commit": "old\n", ".git/config": "cfg\n" });
    const h = await fsHarness({
      workspace: ws,
      options: { protected_grants: [{ id: "hooks.edit", path: ".git/hooks" }] },
    });
    const hook = await h.call("fs_write", {
      path: ".git/hooks/pre-commit",
      content: "new\n",
      expected_revision: sha256("old\n"),
    });
    expect(hook.ok).toBe(true);
    const config = await h.call("fs_write", {
      path: ".git/config",
      content: "x",
      expected_revision: sha256("cfg\n"),
    });
    expect(code(config)).toBe("TOOL_DENIED");
  });
});

describe("roots and permission", () => {
  it("writes into the scratch root without a prompt, creating it lazily with mode 0700, and without review", async () => {
    const base = useTempDir();
    const ws = join(base, "ws");
    mkdirSync(ws);
    const { createScratchRoot } = await import("../scratch.js");
    const scratch = createScratchRoot(join(base, "data"), "session-1");
    const h = await fsHarness({ workspace: ws, scratch }, { mode: "ask" });
    expect(existsSync(scratch.path)).toBe(false);
    expect(code(await h.call("fs_read", { path: `${scratch.path}/draft.md` }))).toBe("NOT_FOUND");
    expect(existsSync(scratch.path)).toBe(false);
    const result = await h.call("fs_write", {
      path: `${scratch.path}/notes/draft.md`,
      content: "d",
      expected_revision: null,
    });
    expect(data(result)).toMatchObject({
      path: `${scratch.path}/notes/draft.md`,
      root: "scratch",
      review: null,
    });
    expect(statSync(scratch.path).mode & 0o777).toBe(0o700);
    expect(h.audit.records.at(-1)).toMatchObject({ prompted: false, decision: "allow" });
    // The same write into the workspace needs a permission answer, and no broker means no.
    const workspaceWrite = await h.call("fs_write", { path: "a.txt", content: "a", expected_revision: null });
    expect(code(workspaceWrite)).toBe("TOOL_DENIED");
    expect(existsSync(join(ws, "a.txt"))).toBe(false);
  });

  it("refuses a scratch directory inside the workspace", async () => {
    const ws = useTempDir();
    const { createScratchRoot } = await import("../scratch.js");
    await expect(
      createFsTools({ workspace: ws, scratch: createScratchRoot(join(ws, ".data"), "s") }),
    ).rejects.toThrow(/outside the workspace/);
  });

  it("sends explicit outside paths through permission as external, with the canonical path", async () => {
    const base = useTempDir();
    const ws = join(base, "ws");
    writeTree(base, { "ws/a.txt": "a", "elsewhere/real/file.txt": "outside\n" });
    const { symlinkSync } = await import("node:fs");
    symlinkSync(join(base, "elsewhere/real"), join(base, "elsewhere/link"));
    const options = { outside_paths: "permission" as const };
    const asking = await fsHarness({ workspace: ws, options }, { mode: "accept-edits" });
    const denied = await asking.call("fs_read", { path: join(base, "elsewhere/link/file.txt") });
    expect(code(denied)).toBe("TOOL_DENIED");
    expect(asking.audit.records.at(-1)).toMatchObject({ externalPath: true, layer: "permission" });
    const auto = await fsHarness({ workspace: ws, options }, { mode: "auto" });
    const read = data(await auto.call("fs_read", { path: join(base, "elsewhere/link/file.txt") }));
    expect(read).toMatchObject({
      root: "external",
      path: join(base, "elsewhere/real/file.txt"),
      content: "outside\n",
    });
    const written = data(
      await auto.call("fs_write", {
        path: join(base, "elsewhere/new.txt"),
        content: "n",
        expected_revision: null,
      }),
    );
    expect(written).toMatchObject({ root: "external", path: join(base, "elsewhere/new.txt"), review: null });
  });
});
