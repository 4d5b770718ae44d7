import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolResult } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { code, fsHarness, useTempDir, writeTree } from "./test-support/harness.js";
import { startNode, stopChild } from "./test-support/processes.js";

/**
 * A swapper process flips `ws/sub` between a real directory and a link to the outside directory,
 * and `ws/leaf.txt` between a regular file and a link to the outside secret, as fast as it can.
 */
const SWAPPER = `
const fs = require("node:fs");
const [ws, outside] = process.argv.slice(1);
const sub = ws + "/sub", real = ws + "/sub.real", leaf = ws + "/leaf.txt", kept = ws + "/leaf.real";
process.stdout.write("ready\\n");
for (;;) {
  try { fs.renameSync(sub, real); fs.symlinkSync(outside, sub); } catch {}
  try { fs.renameSync(leaf, kept); fs.symlinkSync(outside + "/secret.txt", leaf); } catch {}
  try { fs.unlinkSync(sub); fs.renameSync(real, sub); } catch {}
  try { fs.unlinkSync(leaf); fs.renameSync(kept, leaf); } catch {}
}
`;

const ITERATIONS = 500;
/** How long the race may go on past ITERATIONS for both states to show up. */
const RACE_BOUND_MS = 30_000;
const SAFE_FAILURES = new Set(["SYMLINK_REFUSED", "NOT_FOUND", "OUTSIDE_WORKSPACE", "REVISION_CONFLICT"]);

/** A refusal, or a read that gave up because the file kept changing (the swapper renames it). */
function safeReadFailure(result: ToolResult): boolean {
  if (result.ok) return false;
  return (
    SAFE_FAILURES.has(code(result)) ||
    (code(result) === "TOOL_FAILED" && result.error.message.includes("changed while"))
  );
}

function setup() {
  const base = useTempDir();
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  writeTree(ws, {
    "sub/file.txt": "inside\n",
    "sub/inner/deep.txt": "inside deep\n",
    "leaf.txt": "inside leaf\n",
  });
  writeTree(outside, { "secret.txt": "OUTSIDE\n", "file.txt": "OUTSIDE\n", "inner/deep.txt": "OUTSIDE\n" });
  return { ws, outside };
}

describe.each(["refuse", "follow-inside"] as const)(
  "a directory swapped for a link (symlinks: %s)",
  (symlinks) => {
    it("never lets a read or write through, over thousands of calls racing a swapper process", async () => {
      const { ws, outside } = setup();
      const h = await fsHarness({ workspace: ws, options: { symlinks } });
      const swapper = await startNode(SWAPPER, [ws, outside]);
      const seen = new Map<string, number>();
      const note = (key: string) => seen.set(key, (seen.get(key) ?? 0) + 1);
      try {
        // At least ITERATIONS rounds, and on until both states of the swapped paths were seen (a
        // loaded machine can starve one side for a while), within a bound.
        const raced = () =>
          (seen.get("read ok") ?? 0) > 0 &&
          (seen.get("write ok") ?? 0) > 0 &&
          (seen.get("read SYMLINK_REFUSED") ?? 0) + (seen.get("read OUTSIDE_WORKSPACE") ?? 0) > 0;
        const until = Date.now() + RACE_BOUND_MS;
        for (let i = 0; i < ITERATIONS || (!raced() && Date.now() < until); i++) {
          for (const path of ["sub/file.txt", "sub/inner/deep.txt", "leaf.txt"]) {
            const read = await h.call("fs_read", { path });
            if (read.ok) expect(JSON.stringify(read.data)).not.toContain("OUTSIDE");
            else if (!safeReadFailure(read)) throw new Error(JSON.stringify(read));
            note(`read ${code(read)}`);
          }
          const write = await h.call("fs_write", {
            path: `sub/out/out-${i}.txt`,
            content: `w${i}\n`,
            expected_revision: null,
          });
          if (!write.ok) expect(SAFE_FAILURES.has(code(write)) || code(write) === "TOOL_FAILED").toBe(true);
          note(`write ${code(write)}`);
          const search = await h.call("fs_search", { path: "sub/inner", query: "OUTSIDE" });
          if (search.ok) expect((search.data as { matches: unknown[] }).matches).toEqual([]);
          note(`search ${code(search)}`);
        }
      } finally {
        await stopChild(swapper);
      }
      // The race really happened: both states of the swapped paths were observed.
      expect(seen.get("read ok") ?? 0).toBeGreaterThan(0);
      expect(seen.get("write ok") ?? 0).toBeGreaterThan(0);
      expect(
        (seen.get("read SYMLINK_REFUSED") ?? 0) + (seen.get("read OUTSIDE_WORKSPACE") ?? 0),
      ).toBeGreaterThan(0);
      expect(readdirSync(outside).sort()).toEqual(["file.txt", "inner", "secret.txt"]);
      expect(readdirSync(join(outside, "inner"))).toEqual(["deep.txt"]);
      expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("OUTSIDE\n");
    });
  },
);
