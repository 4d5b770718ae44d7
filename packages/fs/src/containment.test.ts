import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { code, data, fsHarness, useTempDir, writeTree } from "./test-support/harness.js";

/** A workspace `<tmp>/proj` beside an outside directory `<tmp>/proj-evil` holding a secret. */
function layout() {
  const base = useTempDir();
  const ws = join(base, "proj");
  const evil = join(base, "proj-evil");
  writeTree(ws, { "a.txt": "inside\n", "dir/inner.txt": "inner\n" });
  writeTree(evil, { "secret.txt": "SECRET\n", "sub/deep.txt": "DEEP\n" });
  return { base, ws, evil };
}

// Seed 001 4a changed what `..` means: it is applied lexically, and an escape is an outside-path
// request (OUTSIDE_WORKSPACE under the default `outside_paths = "deny"`), no longer INVALID_ARGUMENT.
// outside-paths.test.ts covers the permission flow; these are the same spellings as before.
describe("traversal is normalized lexically, and an escape is an outside path", () => {
  it.each(["..", "../proj-evil/secret.txt", "./..", "dir/./../../x", "a/b/../../.."])(
    "%s is OUTSIDE_WORKSPACE for every tool under the default outside_paths",
    async (path) => {
      const { ws, evil } = layout();
      const h = await fsHarness({ workspace: ws });
      expect(code(await h.call("fs_read", { path }))).toBe("OUTSIDE_WORKSPACE");
      expect(code(await h.call("fs_list", { path }))).toBe("OUTSIDE_WORKSPACE");
      expect(code(await h.call("fs_search", { path, query: "x" }))).toBe("OUTSIDE_WORKSPACE");
      expect(code(await h.call("fs_glob", { path, pattern: "*" }))).toBe("OUTSIDE_WORKSPACE");
      expect(code(await h.call("fs_write", { path, content: "x", expected_revision: null }))).toBe(
        "OUTSIDE_WORKSPACE",
      );
      expect(readFileSync(join(evil, "secret.txt"), "utf8")).toBe("SECRET\n");
    },
  );

  it("resolves dir/../a.txt and dir/.. inside the workspace without opening dir", async () => {
    const { ws } = layout();
    const h = await fsHarness({ workspace: ws });
    expect(data(await h.call("fs_read", { path: "dir/../a.txt" }))).toMatchObject({ path: "a.txt" });
    expect(data(await h.call("fs_read", { path: "missing/../a.txt" }))).toMatchObject({ path: "a.txt" });
    expect(data(await h.call("fs_list", { path: "dir/.." }))).toMatchObject({ path: ".", total: 2 });
    expect(code(await h.call("fs_read", { path: "dir/.." }))).toBe("INVALID_ARGUMENT");
  });

  it("cannot hide a protected component or a link behind ..", async () => {
    const { ws, evil } = layout();
    writeTree(ws, { ".git/config": "cfg\n" });
    symlinkSync(evil, join(ws, "link"));
    const h = await fsHarness({ workspace: ws });
    for (const path of ["dir/../.git/config", ".git/x/../config", "./.git/./hooks/../config"]) {
      const write = await h.call("fs_write", { path, content: "x", expected_revision: null });
      expect(!write.ok && write.error.details?.["rule"], path).toBe("fs.protected");
    }
    expect(readFileSync(join(ws, ".git/config"), "utf8")).toBe("cfg\n");
    // `link/..` never opens the link: it names the workspace itself, lexically.
    expect(data(await h.call("fs_list", { path: "link/.." }))).toMatchObject({ path: "." });
    expect(code(await h.call("fs_read", { path: "link/../link/secret.txt" }))).toBe("SYMLINK_REFUSED");
  });

  it("refuses an absolute path that climbs out with ..", async () => {
    const { ws, evil } = layout();
    const h = await fsHarness({ workspace: ws });
    const result = await h.call("fs_read", { path: `${ws}/../proj-evil/secret.txt` });
    expect(code(result)).toBe("OUTSIDE_WORKSPACE");
    expect(JSON.stringify(result)).not.toContain("SECRET");
    expect(readFileSync(join(evil, "secret.txt"), "utf8")).toBe("SECRET\n");
  });

  it("treats names made of dots, like ... and ..x, as ordinary names", async () => {
    const { ws } = layout();
    writeTree(ws, { ".../x.txt": "three dots\n", "..x": "dotdot-x\n" });
    const h = await fsHarness({ workspace: ws });
    expect(data<{ content: string }>(await h.call("fs_read", { path: ".../x.txt" })).content).toBe(
      "three dots\n",
    );
    expect(data<{ content: string }>(await h.call("fs_read", { path: "..x" })).content).toBe("dotdot-x\n");
  });

  it("refuses NUL bytes and a leading //", async () => {
    const { ws } = layout();
    const h = await fsHarness({ workspace: ws });
    expect(code(await h.call("fs_read", { path: "a.txt\u0000.png" }))).toBe("INVALID_ARGUMENT");
    expect(code(await h.call("fs_read", { path: `/${ws}/a.txt` }))).toBe("INVALID_ARGUMENT");
  });
});

describe("absolute and sibling-prefix paths", () => {
  it("accepts an absolute path inside the workspace and refuses its sibling with the same prefix", async () => {
    const { ws, evil } = layout();
    const h = await fsHarness({ workspace: ws });
    const inside = data<{ path: string; content: string }>(await h.call("fs_read", { path: `${ws}/a.txt` }));
    expect(inside).toMatchObject({ path: "a.txt", content: "inside\n" });
    const outside = await h.call("fs_read", { path: `${evil}/secret.txt` });
    expect(code(outside)).toBe("OUTSIDE_WORKSPACE");
    expect(JSON.stringify(outside)).not.toContain("SECRET");
    expect(code(await h.call("fs_list", { path: evil }))).toBe("OUTSIDE_WORKSPACE");
    expect(
      code(await h.call("fs_write", { path: `${evil}/new.txt`, content: "x", expected_revision: null })),
    ).toBe("OUTSIDE_WORKSPACE");
  });

  it("accepts the configured spelling of a workspace reached through a link", async () => {
    const { base, ws } = layout();
    symlinkSync(ws, join(base, "alias"));
    const h = await fsHarness({ workspace: join(base, "alias") });
    const read = data<{ path: string }>(await h.call("fs_read", { path: join(base, "alias", "a.txt") }));
    expect(read.path).toBe("a.txt");
    expect(h.audit.records.at(-1)?.decision).toBe("allow");
  });
});

describe("long paths, trailing dots and slashes", () => {
  it("refuses paths over 4096 bytes and names over 255 bytes", async () => {
    const { ws } = layout();
    const h = await fsHarness({ workspace: ws });
    expect(code(await h.call("fs_read", { path: "a/".repeat(2100) }))).toBe("INVALID_ARGUMENT");
    expect(code(await h.call("fs_read", { path: `${"n".repeat(256)}.txt` }))).toBe("INVALID_ARGUMENT");
  });

  it("reads a file nested deeper than most tools can name in one path", async () => {
    const { ws } = layout();
    const segments = Array.from(
      { length: 60 },
      (_, i) => `level-${String(i).padStart(2, "0")}-${"d".repeat(50)}`,
    );
    mkdirSync(join(ws, ...segments), { recursive: true });
    writeFileSync(join(ws, ...segments, "leaf.txt"), "deep\n");
    const h = await fsHarness({ workspace: ws });
    const path = [...segments, "leaf.txt"].join("/");
    expect(Buffer.byteLength(path)).toBeGreaterThan(3500);
    expect(data<{ content: string }>(await h.call("fs_read", { path })).content).toBe("deep\n");
  });

  it("never strips a trailing dot and never reads a file named with a trailing slash", async () => {
    const { ws } = layout();
    const h = await fsHarness({ workspace: ws });
    expect(code(await h.call("fs_read", { path: "a.txt." }))).toBe("NOT_FOUND");
    expect(code(await h.call("fs_read", { path: "a.txt/" }))).toBe("INVALID_ARGUMENT");
    expect(code(await h.call("fs_write", { path: "b.txt/", content: "x", expected_revision: null }))).toBe(
      "INVALID_ARGUMENT",
    );
    expect(data<{ content: string }>(await h.call("fs_read", { path: "./dir//./inner.txt" })).content).toBe(
      "inner\n",
    );
    expect(data<{ total: number }>(await h.call("fs_list", { path: "dir/." })).total).toBe(1);
    expect(data<{ total: number }>(await h.call("fs_list", { path: "dir/" })).total).toBe(1);
  });
});

describe("symbolic links are refused by default", () => {
  function links(ws: string, evil: string) {
    symlinkSync(join(evil, "secret.txt"), join(ws, "abs-leaf"));
    symlinkSync("../proj-evil/secret.txt", join(ws, "rel-leaf"));
    symlinkSync(evil, join(ws, "abs-dir"));
    symlinkSync("../proj-evil", join(ws, "rel-dir"));
    symlinkSync("abs-leaf", join(ws, "chained"));
    symlinkSync("loop-b", join(ws, "loop-a"));
    symlinkSync("loop-a", join(ws, "loop-b"));
    symlinkSync("missing-target", join(ws, "dangling"));
    symlinkSync("a.txt", join(ws, "inside-leaf"));
    symlinkSync("dir", join(ws, "inside-dir"));
  }

  it.each([
    ["abs-leaf", "abs-leaf"],
    ["rel-leaf", "rel-leaf"],
    ["abs-dir/secret.txt", "abs-dir"],
    ["rel-dir/sub/deep.txt", "rel-dir"],
    ["chained", "chained"],
    ["loop-a", "loop-a"],
    ["dangling", "dangling"],
    ["inside-leaf", "inside-leaf"],
    ["inside-dir/inner.txt", "inside-dir"],
  ])("%s: read and write are SYMLINK_REFUSED naming %s", async (path, component) => {
    const { ws, evil } = layout();
    links(ws, evil);
    const h = await fsHarness({ workspace: ws });
    const read = await h.call("fs_read", { path });
    expect(code(read)).toBe("SYMLINK_REFUSED");
    expect(!read.ok && read.error.message).toContain(component);
    const write = await h.call("fs_write", { path, content: "PWNED", expected_revision: null });
    expect(code(write)).toBe("SYMLINK_REFUSED");
    expect(readFileSync(join(evil, "secret.txt"), "utf8")).toBe("SECRET\n");
    expect(readFileSync(join(evil, "sub/deep.txt"), "utf8")).toBe("DEEP\n");
  });

  it("refuses link ancestors for list, search and glob, and skips links inside walks", async () => {
    const { ws, evil } = layout();
    links(ws, evil);
    const h = await fsHarness({ workspace: ws });
    expect(code(await h.call("fs_list", { path: "abs-dir" }))).toBe("SYMLINK_REFUSED");
    expect(code(await h.call("fs_search", { path: "rel-dir", query: "DEEP" }))).toBe("SYMLINK_REFUSED");
    expect(code(await h.call("fs_glob", { path: "abs-dir", pattern: "**" }))).toBe("SYMLINK_REFUSED");
    const search = data<{ matches: unknown[]; skipped: { symlinks: number } }>(
      await h.call("fs_search", { query: "SECRET" }),
    );
    expect(search.matches).toEqual([]);
    expect(search.skipped.symlinks).toBe(10);
    const glob = data<{ files: string[] }>(await h.call("fs_glob", { pattern: "**", dot: true }));
    expect(glob.files).toEqual(["a.txt", "dir/inner.txt"]);
    const list = data<{ entries: { name: string; type: string }[] }>(await h.call("fs_list", {}));
    expect(list.entries.find((e) => e.name === "abs-dir")?.type).toBe("symlink");
  });
});

describe('symbolic links with symlinks: "follow-inside"', () => {
  const follow = { symlinks: "follow-inside" as const };

  it("follows links whose targets stay inside, chained, at the leaf and at an ancestor", async () => {
    const { ws } = layout();
    symlinkSync("a.txt", join(ws, "leaf"));
    symlinkSync("leaf", join(ws, "chain"));
    symlinkSync(join(ws, "dir"), join(ws, "abs-dir"));
    const h = await fsHarness({ workspace: ws, options: follow });
    expect(data<{ path: string; content: string }>(await h.call("fs_read", { path: "chain" }))).toMatchObject(
      {
        path: "a.txt",
        content: "inside\n",
      },
    );
    expect(data<{ path: string }>(await h.call("fs_read", { path: "abs-dir/inner.txt" })).path).toBe(
      "dir/inner.txt",
    );
    const read = data<{ revision: string }>(await h.call("fs_read", { path: "leaf" }));
    const write = await h.call("fs_write", {
      path: "leaf",
      content: "via link\n",
      expected_revision: read.revision,
    });
    expect(data<{ path: string }>(write).path).toBe("a.txt");
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("via link\n");
  });

  it("refuses targets outside the roots, loops, and dangling links", async () => {
    const { ws, evil } = layout();
    symlinkSync(join(evil, "secret.txt"), join(ws, "abs-leaf"));
    symlinkSync("dir/../../proj-evil", join(ws, "climb"));
    symlinkSync("inside-then-out", join(ws, "chain"));
    symlinkSync("../proj-evil/secret.txt", join(ws, "inside-then-out"));
    symlinkSync("loop-b", join(ws, "loop-a"));
    symlinkSync("loop-a", join(ws, "loop-b"));
    symlinkSync("nothing-here", join(ws, "dangling"));
    const h = await fsHarness({ workspace: ws, options: follow });
    expect(code(await h.call("fs_read", { path: "abs-leaf" }))).toBe("OUTSIDE_WORKSPACE");
    expect(code(await h.call("fs_read", { path: "climb/secret.txt" }))).toBe("OUTSIDE_WORKSPACE");
    expect(code(await h.call("fs_read", { path: "chain" }))).toBe("OUTSIDE_WORKSPACE");
    expect(code(await h.call("fs_read", { path: "loop-a" }))).toBe("SYMLINK_REFUSED");
    expect(code(await h.call("fs_read", { path: "dangling" }))).toBe("NOT_FOUND");
    expect(code(await h.call("fs_write", { path: "abs-leaf", content: "x", expected_revision: null }))).toBe(
      "OUTSIDE_WORKSPACE",
    );
    expect(readFileSync(join(evil, "secret.txt"), "utf8")).toBe("SECRET\n");
  });

  it("declares the resolved target, so policy on the target applies through the link", async () => {
    const { ws } = layout();
    symlinkSync("dir", join(ws, "door"));
    const layers = [{ id: "deploy", "fs.read": { deny: [{ id: "no-dir", path: join(ws, "dir") }] } }];
    const h = await fsHarness({ workspace: ws, options: follow }, { layers });
    const result = await h.call("fs_read", { path: "door/inner.txt" });
    expect(code(result)).toBe("TOOL_DENIED");
    expect(h.audit.records.at(-1)?.rule).toBe("no-dir");
  });
});

describe("special files", () => {
  async function returnsWithin<T>(promise: Promise<T>, ms = 5000): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not return within ${ms} ms`)), ms);
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  it("refuses FIFOs without blocking, for every tool", async () => {
    const { ws } = layout();
    execFileSync("mkfifo", [join(ws, "pipe"), join(ws, "dir/pipe2")]);
    const h = await fsHarness({ workspace: ws });
    expect(code(await returnsWithin(h.call("fs_read", { path: "pipe" })))).toBe("SPECIAL_FILE");
    expect(code(await returnsWithin(h.call("fs_search", { path: "pipe", query: "x" })))).toBe("SPECIAL_FILE");
    const write = await returnsWithin(
      h.call("fs_write", { path: "pipe", content: "x", expected_revision: null }),
    );
    expect(code(write)).toBe("SPECIAL_FILE");
    const search = data<{ skipped: { special: number } }>(
      await returnsWithin(h.call("fs_search", { query: "in" })),
    );
    expect(search.skipped.special).toBe(2);
    const list = data<{ entries: { name: string; type: string }[] }>(
      await h.call("fs_list", { path: "dir" }),
    );
    expect(list.entries).toEqual([
      { name: "inner.txt", type: "file" },
      { name: "pipe2", type: "fifo" },
    ]);
  });

  it("refuses device files reached through a link, and outside device paths when outside paths are allowed", async () => {
    const { ws } = layout();
    symlinkSync("/dev/zero", join(ws, "zero"));
    symlinkSync("/dev", join(ws, "devdir"));
    const h = await fsHarness({ workspace: ws });
    expect(code(await returnsWithin(h.call("fs_read", { path: "zero" })))).toBe("SYMLINK_REFUSED");
    expect(code(await returnsWithin(h.call("fs_read", { path: "devdir/null" })))).toBe("SYMLINK_REFUSED");
    const follow = await fsHarness({ workspace: ws, options: { symlinks: "follow-inside" } });
    expect(code(await returnsWithin(follow.call("fs_read", { path: "zero" })))).toBe("OUTSIDE_WORKSPACE");
    const outside = await fsHarness({ workspace: ws, options: { outside_paths: "permission" } });
    expect(code(await returnsWithin(outside.call("fs_read", { path: "/dev/zero" })))).toBe("SPECIAL_FILE");
    expect(code(await returnsWithin(outside.call("fs_read", { path: "/dev/null" })))).toBe("SPECIAL_FILE");
    expect(
      code(
        await returnsWithin(
          outside.call("fs_write", { path: "/dev/null", content: "x", expected_revision: null }),
        ),
      ),
    ).toBe("SPECIAL_FILE");
  });
});

describe("hard links", () => {
  it("cannot be told apart by path, but a write replaces the link instead of writing through it", async () => {
    const { ws, evil } = layout();
    linkSync(join(evil, "secret.txt"), join(ws, "hard.txt"));
    const h = await fsHarness({ workspace: ws });
    // The documented limit: a hard link made outside the tools is an ordinary file here.
    const read = data<{ content: string; revision: string }>(await h.call("fs_read", { path: "hard.txt" }));
    expect(read.content).toBe("SECRET\n");
    await h.call("fs_write", { path: "hard.txt", content: "replaced\n", expected_revision: read.revision });
    expect(readFileSync(join(ws, "hard.txt"), "utf8")).toBe("replaced\n");
    expect(readFileSync(join(evil, "secret.txt"), "utf8")).toBe("SECRET\n");
  });
});
