import {
  existsSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir, writeTree } from "../test-support/harness.js";
import { STALE_REVIEW_MS, sweepReviewStores } from "./sweep-reviews.js";

const DAY = 24 * 60 * 60 * 1000;

/** Sets the mtime of `paths` (deepest first, links themselves) to `ageMs` ago. */
function age(ageMs: number, ...paths: string[]): void {
  const when = new Date(Date.now() - ageMs);
  for (const path of paths) lutimesSync(path, when, when);
}

/** A store `<base>/<id>` holding one snapshot pair, every mtime `ageMs` old. */
function store(base: string, id: string, ageMs: number): string {
  const dir = join(base, id);
  writeTree(dir, { "s1.json": "{}", "s1.before": "old bytes" });
  age(ageMs, join(dir, "s1.json"), join(dir, "s1.before"), dir);
  return dir;
}

/** `<tmp>/reviews` with stores, beside `<tmp>/outside` that no sweep may touch. */
function layout() {
  const tmp = useTempDir();
  const base = join(tmp, "reviews");
  const outside = join(tmp, "outside");
  mkdirSync(base);
  writeTree(outside, { "keep.txt": "keep\n", "sub/keep.txt": "keep\n" });
  age(30 * DAY, join(outside, "keep.txt"), join(outside, "sub/keep.txt"), join(outside, "sub"), outside);
  return { tmp, base, outside };
}

function outsideIntact(outside: string): void {
  expect(readdirSync(outside).sort()).toEqual(["keep.txt", "sub"]);
  expect(readFileSync(join(outside, "sub/keep.txt"), "utf8")).toBe("keep\n");
}

describe("sweepReviewStores: the startup sweep of review snapshots", () => {
  it("removes stores untouched for over seven days and keeps those with anything newer", async () => {
    const { base } = layout();
    store(base, "stale", 8 * DAY);
    store(base, "fresh", 1 * DAY);
    const touched = store(base, "stale-but-one-file-new", 8 * DAY);
    utimesSync(join(touched, "s1.json"), new Date(), new Date());
    store(base, "nested", 8 * DAY);
    mkdirSync(join(base, "nested", "deep"));
    writeFileSync(join(base, "nested", "deep", "new.txt"), "x");
    age(8 * DAY, join(base, "nested"));
    expect(sweepReviewStores(base)).toEqual(["stale"]);
    expect(readdirSync(base).sort()).toEqual(["fresh", "nested", "stale-but-one-file-new"]);
    // The same stores judged ten days later are all stale.
    expect(sweepReviewStores(base, { now: Date.now() + 10 * DAY })).toEqual([
      "fresh",
      "nested",
      "stale-but-one-file-new",
    ]);
    expect(readdirSync(base)).toEqual([]);
  });

  it("also removes stores of sessions the caller says are gone, whatever their age", () => {
    const { base } = layout();
    store(base, "live-fresh", 0);
    store(base, "live-stale", 8 * DAY);
    store(base, "dead-fresh", 0);
    const removed = sweepReviewStores(base, { isLive: (id) => id.startsWith("live") });
    expect(removed).toEqual(["dead-fresh", "live-stale"]);
    expect(readdirSync(base)).toEqual(["live-fresh"]);
    expect(sweepReviewStores(base, { maxAgeMs: 0, now: Date.now() + 1000 })).toEqual(["live-fresh"]);
    expect(STALE_REVIEW_MS).toBe(7 * DAY);
  });

  it("never follows a link: top-level links and files stay, links inside a store go as links", () => {
    const { tmp, base, outside } = layout();
    symlinkSync(outside, join(base, "link-to-outside"));
    age(30 * DAY, join(base, "link-to-outside"));
    writeFileSync(join(base, "stray-file"), "x");
    age(30 * DAY, join(base, "stray-file"));
    const dir = store(base, "with-links", 8 * DAY);
    symlinkSync(outside, join(dir, "dir-link"));
    symlinkSync(join(outside, "keep.txt"), join(dir, "file-link"));
    age(8 * DAY, join(dir, "dir-link"), join(dir, "file-link"), dir);
    expect(sweepReviewStores(base, { isLive: () => false })).toEqual(["with-links"]);
    expect(readdirSync(base).sort()).toEqual(["link-to-outside", "stray-file"]);
    outsideIntact(outside);
    expect(readdirSync(tmp).sort()).toEqual(["outside", "reviews"]);
  });

  it("leaves a store that turned into a link to the outside between the listing and the check", () => {
    const { tmp, base, outside } = layout();
    store(base, "a-swapped", 8 * DAY);
    store(base, "b-dead", 0);
    const removed = sweepReviewStores(base, {
      isLive: (id) => {
        if (id === "a-swapped") {
          renameSync(join(base, id), join(tmp, "moved-away"));
          symlinkSync(outside, join(base, id));
        }
        return false;
      },
    });
    expect(removed).toEqual(["b-dead"]);
    outsideIntact(outside);
    expect(existsSync(join(tmp, "moved-away", "s1.json"))).toBe(true);
  });

  it("bounds its work by maxEntries and finishes on a later sweep", () => {
    const { base } = layout();
    for (const id of ["s1", "s2", "s3"]) {
      const dir = join(base, id);
      writeTree(dir, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, "x"])));
      age(8 * DAY, ...readdirSync(dir).map((f) => join(dir, f)), dir);
    }
    // Each store costs 1 (its name) + 20 (looked at) + 20 (removed) entries.
    expect(sweepReviewStores(base, { maxEntries: 50 })).toEqual(["s1"]);
    expect(readdirSync(base).sort()).toEqual(["s2", "s3"]);
    // Too small to judge even one store: nothing is removed on a guess.
    expect(sweepReviewStores(base, { maxEntries: 10 })).toEqual([]);
    expect(readdirSync(base).sort()).toEqual(["s2", "s3"]);
    expect(sweepReviewStores(base)).toEqual(["s2", "s3"]);
  });

  it("returns nothing for a missing base directory and keeps the legacy (baseDir, isLive) form", () => {
    const { tmp, base } = layout();
    expect(sweepReviewStores(join(tmp, "missing"))).toEqual([]);
    store(base, "live", 0);
    store(base, "dead", 0);
    expect(sweepReviewStores(base, (id) => id === "live")).toEqual(["dead"]);
  });
});
