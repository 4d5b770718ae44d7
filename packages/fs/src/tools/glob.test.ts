import { describe, expect, it } from "vitest";
import { code, data, fsHarness } from "../test-support/harness.js";
import { PORTS, portWorkspace } from "../test-support/ports.js";

interface Globbed {
  files: string[];
  bound: string | null;
  complete: boolean;
  skipped: { symlinks: number; special: number };
}

describe.each(PORTS)("fs.glob on the %s port", (kind) => {
  function tree() {
    const w = portWorkspace(kind);
    for (const path of [
      "src/a.ts",
      "src/b.js",
      "src/lib/c.ts",
      "src/lib/deep/d.ts",
      "README.md",
      ".hidden/e.ts",
      "src/.f.ts",
    ]) {
      w.write(path, "x");
    }
    w.symlink("src", "linked-src");
    return w;
  }

  it("finds files depth-first in byte order, skipping links and dot names unless asked", async () => {
    const w = tree();
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    const all = data<Globbed>(await h.call("fs_glob", { pattern: "**/*.ts" }));
    expect(all).toMatchObject({
      files: ["src/a.ts", "src/lib/c.ts", "src/lib/deep/d.ts"],
      bound: null,
      complete: true,
      skipped: { symlinks: 1, special: 0 },
    });
    const dot = data<Globbed>(await h.call("fs_glob", { pattern: "**/*.ts", dot: true }));
    expect(dot.files).toEqual([".hidden/e.ts", "src/.f.ts", "src/a.ts", "src/lib/c.ts", "src/lib/deep/d.ts"]);
    const under = data<Globbed>(await h.call("fs_glob", { path: "src/lib", pattern: "*.ts" }));
    expect(under.files).toEqual(["src/lib/c.ts"]);
  });

  it("says which bound stopped it: results, depth or entries", async () => {
    const w = tree();
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    expect(data<Globbed>(await h.call("fs_glob", { pattern: "**/*.ts", max_results: 2 }))).toMatchObject({
      files: ["src/a.ts", "src/lib/c.ts"],
      bound: "results",
      complete: false,
    });
    expect(data<Globbed>(await h.call("fs_glob", { pattern: "**/*.ts", max_depth: 2 }))).toMatchObject({
      files: ["src/a.ts"],
      bound: "depth",
    });
    const quota = await fsHarness({ workspace: w.ws, io: w.io, options: { quotas: { entries: 3 } } });
    expect(data<Globbed>(await quota.call("fs_glob", { pattern: "**" })).bound).toBe("entries");
  });

  it("refuses absolute patterns and patterns with ..", async () => {
    const w = tree();
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    expect(code(await h.call("fs_glob", { pattern: "../*" }))).toBe("INVALID_ARGUMENT");
    expect(code(await h.call("fs_glob", { pattern: "/etc/*" }))).toBe("INVALID_ARGUMENT");
  });
});
