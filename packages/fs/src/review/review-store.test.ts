import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { code, data, fsHarness, useTempDir, writeTree } from "../test-support/harness.js";
import type { ReviewChange } from "./review-change.js";
import { NOT_REVERSIBLE, ReviewStore } from "./review-store.js";
import { sweepReviewStores } from "./sweep-reviews.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function setup(files: Record<string, string> = {}, options = {}) {
  const base = useTempDir();
  const ws = join(base, "ws");
  mkdirSync(ws);
  writeTree(ws, files);
  const reviews = new ReviewStore(join(base, "state", "reviews", "session-1"));
  const h = await fsHarness({ workspace: ws, reviews, options });
  return { base, ws, reviews, h };
}

describe("review snapshots", () => {
  it("returns a bounded review record for each workspace change and keeps it outside the workspace", async () => {
    const { ws, reviews, h } = await setup({ "a.txt": "one\ntwo\nthree\n" });
    const result = data<{ review: ReviewChange }>(
      await h.call("fs_edit", {
        path: "a.txt",
        old_string: "two",
        new_string: "2",
        expected_revision: sha256("one\ntwo\nthree\n"),
      }),
    );
    expect(result.review).toMatchObject({
      version: 1,
      path: "a.txt",
      operation: "edit",
      status: "modified",
      state: "active",
      additions: 1,
      deletions: 1,
      reversible: true,
      hunks: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" one", "-two", "+2", " three"] },
      ],
    });
    expect(result.review.messageId).toBe(h.audit.records.at(-1)?.callId);
    expect(reviews.list()).toEqual([result.review]);
    expect(reviews.dir.startsWith(ws)).toBe(false);
    const created = data<{ review: ReviewChange }>(
      await h.call("fs_write", { path: "b.txt", content: "b\n", expected_revision: null }),
    );
    expect(created.review).toMatchObject({ status: "added", operation: "write", additions: 1, deletions: 0 });
    expect(reviews.list().map((c) => c.path)).toEqual(["a.txt", "b.txt"]);
  });

  it("rolls a change back only while the file still has the content the change wrote", async () => {
    const { ws, reviews, h } = await setup({ "a.txt": "v1\n" });
    chmodSync(join(ws, "a.txt"), 0o640);
    const first = data<{ review: ReviewChange }>(
      await h.call("fs_write", { path: "a.txt", content: "v2\n", expected_revision: sha256("v1\n") }),
    ).review;
    const second = data<{ review: ReviewChange }>(
      await h.call("fs_write", { path: "a.txt", content: "v3\n", expected_revision: sha256("v2\n") }),
    ).review;
    const conflict = await reviews.rollback(first.snapshotId);
    expect(conflict).toMatchObject({ ok: false, error: { code: "REVISION_CONFLICT" } });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("v3\n");
    expect(await reviews.rollback(second.snapshotId)).toMatchObject({ ok: true, action: "restored" });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("v2\n");
    expect(await reviews.rollback(first.snapshotId)).toMatchObject({ ok: true, action: "restored" });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("v1\n");
    expect(statSync(join(ws, "a.txt")).mode & 0o777).toBe(0o640);
    expect(reviews.list().map((c) => c.state)).toEqual(["rolledBack", "rolledBack"]);
    expect(await reviews.rollback(first.snapshotId)).toMatchObject({
      ok: false,
      error: { code: "INVALID_ARGUMENT" },
    });
  });

  it("removes a file the change created, unless it was edited since", async () => {
    const { ws, reviews, h } = await setup();
    const made = data<{ review: ReviewChange }>(
      await h.call("fs_write", { path: "n.txt", content: "n\n", expected_revision: null }),
    ).review;
    const other = data<{ review: ReviewChange }>(
      await h.call("fs_write", { path: "m.txt", content: "m\n", expected_revision: null }),
    ).review;
    writeFileSync(join(ws, "m.txt"), "edited by hand\n");
    expect(await reviews.rollback(made.snapshotId)).toMatchObject({ ok: true, action: "removed" });
    expect(existsSync(join(ws, "n.txt"))).toBe(false);
    expect(await reviews.rollback(other.snapshotId)).toMatchObject({
      ok: false,
      error: { code: "REVISION_CONFLICT" },
    });
    expect(readFileSync(join(ws, "m.txt"), "utf8")).toBe("edited by hand\n");
    expect(await reviews.rollback("no-such-id")).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("marks a change over the snapshot size as not reversible and refuses to roll it back", async () => {
    const { reviews, h } = await setup({ "big.txt": "x".repeat(64) }, { review_snapshot_bytes: 32 });
    const change = data<{ review: ReviewChange }>(
      await h.call("fs_write", {
        path: "big.txt",
        content: "small\n",
        expected_revision: sha256("x".repeat(64)),
      }),
    ).review;
    expect(change).toMatchObject({ reversible: false, truncated: true, hunks: [] });
    expect(await reviews.rollback(change.snapshotId)).toMatchObject({
      ok: false,
      error: { code: NOT_REVERSIBLE },
    });
  });

  it("marks binary previous content and keeps no review for failed writes", async () => {
    const { ws, reviews, h } = await setup();
    writeFileSync(join(ws, "blob"), Buffer.from([0, 1, 2, 255]));
    const revision = createHash("sha256")
      .update(Buffer.from([0, 1, 2, 255]))
      .digest("hex");
    const change = data<{ review: ReviewChange }>(
      await h.call("fs_write", { path: "blob", content: "text\n", expected_revision: revision }),
    ).review;
    expect(change).toMatchObject({ binary: true, hunks: [], reversible: true });
    expect(code(await h.call("fs_write", { path: "blob", content: "x", expected_revision: revision }))).toBe(
      "REVISION_CONFLICT",
    );
    expect(reviews.list()).toHaveLength(1);
    expect(await reviews.rollback(change.snapshotId)).toMatchObject({ ok: true });
    expect(readFileSync(join(ws, "blob"))).toEqual(Buffer.from([0, 1, 2, 255]));
  });

  it("sweeps the stores of sessions that are gone", () => {
    const base = useTempDir();
    for (const id of ["live", "dead"])
      new ReviewStore(join(base, id)).stage(null).commit({
        change: {
          version: 1,
          snapshotId: "x",
          messageId: "m",
          path: "p",
          operation: "write",
          status: "added",
          state: "active",
          additions: 0,
          deletions: 0,
          hunks: [],
          reversible: true,
        },
        target: "/nowhere",
        beforeRevision: null,
        afterRevision: sha256(""),
        mode: null,
      });
    expect(sweepReviewStores(base, (id) => id === "live")).toEqual(["dead"]);
    expect(existsSync(join(base, "live"))).toBe(true);
    expect(existsSync(join(base, "dead"))).toBe(false);
  });
});
