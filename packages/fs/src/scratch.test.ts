import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createScratchRoot, STALE_SCRATCH_MS, scratchNotice, sweepScratch } from "./scratch.js";
import { useTempDir } from "./test-support/harness.js";

describe("scratch roots", () => {
  it("names <dataDir>/scratch/<sessionId> without creating it, and refuses session IDs that are paths", () => {
    const data = useTempDir();
    const scratch = createScratchRoot(data, "s-1");
    expect(scratch.path).toBe(join(data, "scratch", "s-1"));
    expect(existsSync(scratch.path)).toBe(false);
    for (const bad of ["", ".", "..", "a/b", "../x", "\u0000"])
      expect(() => createScratchRoot(data, bad)).toThrow();
    mkdirSync(scratch.path, { recursive: true });
    scratch.remove();
    expect(existsSync(scratch.path)).toBe(false);
  });

  it("sweeps directories of dead sessions and directories untouched for over seven days", () => {
    const data = useTempDir();
    const now = Date.now();
    for (const id of ["live-fresh", "live-stale", "dead-fresh"]) {
      mkdirSync(join(data, "scratch", id, "nested"), { recursive: true });
      writeFileSync(join(data, "scratch", id, "nested", "f.txt"), "x");
    }
    const removed = sweepScratch(data, { isLive: (id) => id.startsWith("live"), now: now + 1000 }).sort();
    // ctime cannot be set back, so "untouched" is judged at a future `now` for the stale one.
    const later = sweepScratch(data, {
      isLive: (id) => id.startsWith("live"),
      now: now + STALE_SCRATCH_MS + 120_000,
    });
    expect(removed).toEqual(["dead-fresh"]);
    expect(later.sort()).toEqual(["live-fresh", "live-stale"]);
  });

  it("words the system-prompt notice with the path, the relative-path rule and prompt-free writes", () => {
    expect(scratchNotice("/var/lib/pablo/scratch/s-1")).toMatchInlineSnapshot(
      `"Your session scratch directory is /var/lib/pablo/scratch/s-1: put temporary files there (one-off scripts, downloads, drafts) by that absolute path, and writing there needs no approval. Relative paths always resolve against the workspace, never against the scratch directory."`,
    );
    for (const bad of ["relative/scratch", "/tmp/with\nnewline", "/tmp/with\u0007bell"]) {
      expect(() => scratchNotice(bad)).toThrow(/INVALID_SCRATCH|absolute path/);
    }
  });
});
