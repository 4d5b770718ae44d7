import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveContainedDirectory } from "./contained-directory.js";
import { useTempDir, writeTree } from "./test-support/harness.js";

describe("resolveContainedDirectory", () => {
  function layout() {
    const base = useTempDir();
    const ws = join(base, "ws");
    writeTree(base, { "ws/src/lib/x.ts": "x", "ws/file.txt": "f", "outside/o.txt": "o" });
    symlinkSync(join(base, "outside"), join(ws, "out"));
    symlinkSync("src", join(ws, "src-link"));
    return { base, ws };
  }

  it("returns the canonical path of a directory inside the workspace", async () => {
    const { ws } = layout();
    expect(await resolveContainedDirectory(ws, "src/lib")).toEqual({ ok: true, path: join(ws, "src/lib") });
    expect(await resolveContainedDirectory(ws, ".")).toEqual({ ok: true, path: ws });
    expect(await resolveContainedDirectory(ws, `${ws}/src`)).toEqual({ ok: true, path: join(ws, "src") });
  });

  it("refuses links, traversal, files, missing and outside directories", async () => {
    const { base, ws } = layout();
    const codeOf = async (path: string, symlinks?: "refuse" | "follow-inside") => {
      const result = await resolveContainedDirectory(ws, path, symlinks ? { symlinks } : {});
      return result.ok ? "ok" : result.error.code;
    };
    expect(await codeOf("out")).toBe("SYMLINK_REFUSED");
    expect(await codeOf("src-link")).toBe("SYMLINK_REFUSED");
    // Seed 001 4a: a `..` escape is an outside path (it was INVALID_ARGUMENT before `..` was normalized).
    expect(await codeOf("..")).toBe("OUTSIDE_WORKSPACE");
    expect(await codeOf("src/../..")).toBe("OUTSIDE_WORKSPACE");
    expect(await resolveContainedDirectory(ws, "src/lib/..")).toEqual({ ok: true, path: join(ws, "src") });
    expect(await codeOf("file.txt/.")).toBe("INVALID_ARGUMENT");
    expect(await codeOf("file.txt")).toBe("INVALID_ARGUMENT");
    expect(await codeOf("missing")).toBe("NOT_FOUND");
    expect(await codeOf(join(base, "outside"))).toBe("OUTSIDE_WORKSPACE");
    expect(await codeOf("out", "follow-inside")).toBe("OUTSIDE_WORKSPACE");
    mkdirSync(join(ws, "real"));
    expect(await resolveContainedDirectory(ws, "src-link/lib", { symlinks: "follow-inside" })).toEqual({
      ok: true,
      path: join(ws, "src/lib"),
    });
  });
});
