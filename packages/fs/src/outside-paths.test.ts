import { existsSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { PermissionAnswer, PermissionBroker, PermissionMode, PermissionRequest } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { createScratchRoot } from "./scratch.js";
import { code, data, fsHarness, useTempDir, writeTree } from "./test-support/harness.js";

/** `<tmp>/proj` (the workspace) beside `<tmp>/proj-evil`, plus a scratch root under `<tmp>/data`. */
function layout() {
  const base = useTempDir();
  const ws = join(base, "proj");
  const evil = join(base, "proj-evil");
  writeTree(ws, { "a.txt": "inside\n", "dir/inner.txt": "inner\n" });
  writeTree(evil, { "secret.txt": "SECRET\n", "sub/deep.txt": "DEEP\n" });
  writeTree(base, { "other/deep.txt": "OTHER\n" });
  return { base, ws, evil, scratch: createScratchRoot(join(base, "data"), "s-1") };
}

/** A broker that records every card and answers with `answer`, after running `meanwhile`. */
function broker(answer: PermissionAnswer, meanwhile?: () => void) {
  const asked: PermissionRequest[] = [];
  const impl: PermissionBroker = {
    request: async (request) => {
      asked.push(request);
      meanwhile?.();
      return answer;
    },
  };
  return { asked, impl };
}

const permission = { outside_paths: "permission" as const };

/** Relative spellings of `<tmp>/proj-evil/secret.txt` seen from the workspace `<tmp>/proj`. */
const SECRET_SPELLINGS = [
  "../proj-evil/secret.txt",
  "./../proj-evil/secret.txt",
  "dir/../../proj-evil/secret.txt",
  "a/../../proj-evil/secret.txt",
  "missing/x/../../../proj-evil/./secret.txt",
  "..//proj-evil//secret.txt",
  "../proj-evil/sub/../secret.txt",
];

describe("a relative .. escape is the same request as its absolute path", () => {
  it.each(SECRET_SPELLINGS)("%s reads <tmp>/proj-evil/secret.txt as external under auto", async (path) => {
    const { ws, evil } = layout();
    const h = await fsHarness({ workspace: ws, options: permission }, { mode: "auto" });
    const relative = data(await h.call("fs_read", { path }));
    const absolute = data(await h.call("fs_read", { path: join(evil, "secret.txt") }));
    expect(relative).toEqual(absolute);
    expect(relative).toMatchObject({ root: "external", path: join(evil, "secret.txt"), content: "SECRET\n" });
    expect(h.audit.records.map((r) => [r.externalPath, r.prompted, r.decision])).toEqual([
      [true, false, "allow"],
      [true, false, "allow"],
    ]);
  });

  it.each(["ask", "accept-edits"] as PermissionMode[])(
    "%s shows the ordinary card for a .. escape, and a denial never runs it",
    async (mode) => {
      const { ws, evil } = layout();
      const no = broker("deny");
      const h = await fsHarness({ workspace: ws, options: permission }, { mode, broker: no.impl });
      for (const path of SECRET_SPELLINGS) {
        const read = await h.call("fs_read", { path });
        expect(code(read)).toBe("TOOL_DENIED");
        expect(JSON.stringify(read)).not.toContain("SECRET");
      }
      const write = await h.call("fs_write", {
        path: "../proj-evil/secret.txt",
        content: "PWNED",
        expected_revision: null,
      });
      expect(code(write)).toBe("TOOL_DENIED");
      expect(no.asked).toHaveLength(SECRET_SPELLINGS.length + 1);
      expect(no.asked.every((r) => r.reason === "explicit path outside the session roots")).toBe(true);
      expect(
        h.audit.records.every((r) => r.externalPath && r.prompted && r.rule.endsWith("external-path")),
      ).toBe(true);
      expect(readFileSync(join(evil, "secret.txt"), "utf8")).toBe("SECRET\n");
    },
  );

  it("allow-once runs exactly the approved call: a write through ../ lands on the canonical outside file", async () => {
    const { ws, evil } = layout();
    const yes = broker("allow-once");
    const h = await fsHarness(
      { workspace: ws, options: permission },
      { mode: "accept-edits", broker: yes.impl },
    );
    const written = data(
      await h.call("fs_write", {
        path: "dir/../../proj-evil/new.txt",
        content: "n\n",
        expected_revision: null,
      }),
    );
    expect(written).toMatchObject({ root: "external", path: join(evil, "new.txt"), review: null });
    expect(readFileSync(join(evil, "new.txt"), "utf8")).toBe("n\n");
    expect(yes.asked).toHaveLength(1);
  });

  it("lists, globs and searches an outside directory named with .. and trailing slashes, with absolute results", async () => {
    const { ws, evil } = layout();
    const h = await fsHarness({ workspace: ws, options: permission }, { mode: "auto" });
    for (const path of ["../proj-evil", "../proj-evil/", "./../proj-evil/.", "dir/../../proj-evil/sub/.."]) {
      expect(data(await h.call("fs_list", { path }))).toMatchObject({
        root: "external",
        path: evil,
        total: 2,
      });
      expect(data(await h.call("fs_glob", { path, pattern: "**" }))).toMatchObject({
        root: "external",
        files: [join(evil, "secret.txt"), join(evil, "sub/deep.txt")],
      });
      const search = data<{ matches: { path: string }[] }>(
        await h.call("fs_search", { path, query: "DEEP" }),
      );
      expect(search.matches.map((m) => m.path)).toEqual([join(evil, "sub/deep.txt")]);
    }
    // A trailing slash still names a directory: never read as a file.
    expect(code(await h.call("fs_read", { path: "../proj-evil/secret.txt/" }))).toBe("INVALID_ARGUMENT");
  });

  it("is OUTSIDE_WORKSPACE under outside_paths = deny, in every permission mode", async () => {
    const { ws, evil } = layout();
    for (const mode of ["ask", "accept-edits", "auto"] as PermissionMode[]) {
      const h = await fsHarness({ workspace: ws }, { mode });
      for (const path of [...SECRET_SPELLINGS, "..", "../", "../..", "dir/../../proj-evil/sub/"]) {
        expect(code(await h.call("fs_read", { path })), `${mode} ${path}`).toBe("OUTSIDE_WORKSPACE");
        expect(code(await h.call("fs_list", { path })), `${mode} ${path}`).toBe("OUTSIDE_WORKSPACE");
      }
      expect(
        code(await h.call("fs_write", { path: "../proj-evil/x", content: "x", expected_revision: null })),
      ).toBe("OUTSIDE_WORKSPACE");
    }
    expect(existsSync(join(evil, "x"))).toBe(false);
  });

  it("lands in the workspace or the scratch root when the normalized path does", async () => {
    const { ws, scratch } = layout();
    // No broker: anything that needed a card would be denied.
    const h = await fsHarness({ workspace: ws, scratch, options: permission }, { mode: "ask" });
    expect(data(await h.call("fs_read", { path: "../proj/a.txt" }))).toMatchObject({
      root: "workspace",
      path: "a.txt",
    });
    const draft = data(
      await h.call("fs_write", {
        path: "../data/scratch/s-1/draft.md",
        content: "d",
        expected_revision: null,
      }),
    );
    expect(draft).toMatchObject({ root: "scratch", path: join(scratch.path, "draft.md"), review: null });
    expect(h.audit.records.map((r) => [r.externalPath, r.prompted])).toEqual([
      [false, false],
      [false, false],
    ]);
  });

  it("canonicalizes again after approval: a component swapped for a link meanwhile is refused", async () => {
    const { base, ws, evil } = layout();
    const swap = () => {
      renameSync(join(evil, "sub"), join(evil, "sub.real"));
      symlinkSync(join(base, "other"), join(evil, "sub"));
    };
    const yes = broker("allow-once", swap);
    const h = await fsHarness({ workspace: ws, options: permission }, { mode: "ask", broker: yes.impl });
    const read = await h.call("fs_read", { path: "../proj-evil/sub/deep.txt" });
    expect(code(read)).toBe("TOOL_DENIED");
    expect(!read.ok && read.error.details?.["rule"]).toBe("fs.path-changed");
    expect(JSON.stringify(read)).not.toContain("OTHER");
  });
});

describe("a link escape is an outside-path request under follow-inside", () => {
  function linked() {
    const l = layout();
    symlinkSync("../proj-evil", join(l.ws, "out"));
    symlinkSync(join(l.evil, "secret.txt"), join(l.ws, "secret-link"));
    return l;
  }
  const follow = { symlinks: "follow-inside" as const, outside_paths: "permission" as const };

  it("declares the canonical target as external: auto reads it, ask shows a card", async () => {
    const { ws, evil } = linked();
    const auto = await fsHarness({ workspace: ws, options: follow }, { mode: "auto" });
    for (const path of ["out/secret.txt", "secret-link", "out/sub/../secret.txt", "./out/./secret.txt"]) {
      expect(data(await auto.call("fs_read", { path }))).toMatchObject({
        root: "external",
        path: join(evil, "secret.txt"),
        content: "SECRET\n",
      });
    }
    expect(data(await auto.call("fs_list", { path: "out/" }))).toMatchObject({
      root: "external",
      path: evil,
    });
    expect(auto.audit.records.every((r) => r.externalPath && !r.prompted)).toBe(true);
    const no = broker("deny");
    const ask = await fsHarness({ workspace: ws, options: follow }, { mode: "ask", broker: no.impl });
    expect(code(await ask.call("fs_read", { path: "out/secret.txt" }))).toBe("TOOL_DENIED");
    expect(
      code(await ask.call("fs_write", { path: "secret-link", content: "x", expected_revision: null })),
    ).toBe("TOOL_DENIED");
    expect(no.asked).toHaveLength(2);
    expect(readFileSync(join(evil, "secret.txt"), "utf8")).toBe("SECRET\n");
  });

  it("stays OUTSIDE_WORKSPACE under deny and SYMLINK_REFUSED under symlinks = refuse", async () => {
    const { ws } = linked();
    const deny = await fsHarness({ workspace: ws, options: { symlinks: "follow-inside" } }, { mode: "auto" });
    expect(code(await deny.call("fs_read", { path: "out/secret.txt" }))).toBe("OUTSIDE_WORKSPACE");
    const refuse = await fsHarness({ workspace: ws, options: permission }, { mode: "auto" });
    expect(code(await refuse.call("fs_read", { path: "out/secret.txt" }))).toBe("SYMLINK_REFUSED");
    expect(code(await refuse.call("fs_read", { path: "secret-link" }))).toBe("SYMLINK_REFUSED");
  });

  it("resolves the link again after approval: a link retargeted meanwhile is refused, not followed", async () => {
    const { base, ws } = linked();
    const retarget = () => {
      rmSync(join(ws, "out"));
      symlinkSync(join(base, "other"), join(ws, "out"));
    };
    const yes = broker("allow-once", retarget);
    const h = await fsHarness({ workspace: ws, options: follow }, { mode: "ask", broker: yes.impl });
    const read = await h.call("fs_read", { path: "out/deep.txt" });
    // Approved: <tmp>/proj-evil/deep.txt (absent); at execution the link names <tmp>/other/deep.txt.
    expect(code(read)).toBe("TOOL_DENIED");
    expect(!read.ok && read.error.details?.["rule"]).toBe("fs.path-changed");
    expect(JSON.stringify(read)).not.toContain("OTHER");
  });
});
