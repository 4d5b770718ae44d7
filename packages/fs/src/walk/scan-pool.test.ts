import { closeSync, constants, openSync } from "node:fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { useTempDir, writeTree } from "../test-support/harness.js";
import { Yielder } from "../yielder.js";
import { ScanPool } from "./scan-pool.js";

const request = { query: "needle", maxLines: 10, fileBytes: undefined, largeBytes: 1 << 20 };

describe("ScanPool", () => {
  it("answers many small batches posted together, each with its own files", async () => {
    const ws = useTempDir();
    const names = Array.from({ length: 40 }, (_, i) => `f${i}`);
    writeTree(ws, Object.fromEntries(names.map((n, i) => [n, i % 4 === 0 ? `x\nneedle ${n}\n` : "x\n"])));
    const dir = openSync(ws, constants.O_RDONLY | constants.O_DIRECTORY);
    onTestFinished(() => closeSync(dir));
    const pool = new ScanPool();
    onTestFinished(() => pool.close());
    const answers = await Promise.all(names.map((name) => pool.run({ dir, names: [name], ...request })));
    expect(answers.map((a) => a.found.map((f) => f.matches[0]?.text))).toEqual(
      names.map((n, i) => (i % 4 === 0 ? [`needle ${n}`] : [])),
    );
  });

  it("fails batches pending at close, and starts afresh for the next one", async () => {
    const ws = useTempDir();
    writeTree(ws, { f: "needle\n" });
    const dir = openSync(ws, constants.O_RDONLY | constants.O_DIRECTORY);
    onTestFinished(() => closeSync(dir));
    const pool = new ScanPool();
    onTestFinished(() => pool.close());
    const pending = pool.run({ dir, names: ["f"], ...request });
    pool.close();
    await expect(pending).rejects.toThrow("stopped");
    expect(pool.running).toBe(false);
    pool.start();
    expect(pool.running).toBe(true);
    await expect.poll(() => pool.ready).toBe(true);
    const again = await pool.run({ dir, names: ["f"], ...request });
    expect(again.found).toHaveLength(1);
    // The stopped workers' exits come later and must not fail the new ones' batches.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await pool.run({ dir, names: ["f"], ...request })).statuses).toEqual([0]);
  });
});

describe("ScanPool shared with the calling thread", () => {
  const openTree = (files: Record<string, string>) => {
    const ws = useTempDir();
    writeTree(ws, files);
    const dir = openSync(ws, constants.O_RDONLY | constants.O_DIRECTORY);
    onTestFinished(() => closeSync(dir));
    return dir;
  };
  const texts = (scan: { found: { matches: { text: string }[] }[] }) =>
    scan.found.map((f) => f.matches[0]?.text);

  it("answers queued batches from the calling thread when no worker takes them", async () => {
    const dir = openTree({ a: "needle a\n", b: "nothing\n", c: "x\nneedle c\n" });
    const pool = new ScanPool({ workers: 0 });
    onTestFinished(() => pool.close());
    const first = pool.run({ dir, names: ["a", "b"], ...request });
    const second = pool.run({ dir, names: ["c", "gone"], ...request });
    const here = new Yielder();
    expect(await pool.scanHere(here)).toBe(true);
    expect(await pool.scanHere(here)).toBe(true);
    expect(await pool.scanHere(here)).toBe(false);
    expect(texts(await first)).toEqual(["needle a"]);
    const answer = await second;
    expect(texts(answer)).toEqual(["needle c"]);
    expect(answer.statuses).toEqual([0, 3]);
  });

  it("leaves a short queue to the workers when the calling thread is asked to spare them", async () => {
    const dir = openTree({ a: "needle a\n" });
    const pool = new ScanPool({ workers: 1 });
    onTestFinished(() => pool.close());
    const answer = pool.run({ dir, names: ["a"], ...request });
    expect(await pool.scanHere(new Yielder(), true)).toBe(false);
    expect(texts(await answer)).toEqual(["needle a"]);
  });

  it("drops the batches of a cancelled group that nobody took, and only those", async () => {
    const dir = openTree({ a: "needle a\n" });
    const pool = new ScanPool({ workers: 0 });
    onTestFinished(() => pool.close());
    const [stopped, other] = [{}, {}];
    const dropped = [
      pool.run({ dir, names: ["a"], ...request }, stopped),
      pool.run({ dir, names: ["a"], ...request }, stopped),
    ];
    const kept = pool.run({ dir, names: ["a"], ...request }, other);
    pool.cancel(stopped);
    for (const batch of dropped) await expect(batch).rejects.toThrow("dropped");
    expect(await pool.scanHere(new Yielder())).toBe(true);
    expect(await pool.scanHere(new Yielder())).toBe(false);
    expect(texts(await kept)).toEqual(["needle a"]);
  });

  it("answers every batch once, with its own files, while a worker and the calling thread race for them", async () => {
    const names = Array.from({ length: 300 }, (_, i) => `f${i}`);
    const dir = openTree(Object.fromEntries(names.map((n, i) => [n, i % 3 === 0 ? `needle ${n}\n` : "x\n"])));
    const pool = new ScanPool({ workers: 1 });
    onTestFinished(() => pool.close());
    const batches = Array.from({ length: 100 }, (_, b) => names.slice(b * 3, b * 3 + 3));
    const answers = batches.map((batch) => pool.run({ dir, names: batch, ...request }));
    let here = 0;
    while (await pool.scanHere(new Yielder())) here++;
    const results = await Promise.all(answers);
    expect(results.map(texts)).toEqual(batches.map((batch) => [`needle ${batch[0]}`]));
    expect(results.every((r) => r.statuses.length === 3)).toBe(true);
    // Nothing was left for this thread only once every batch had been claimed by one side or the other.
    expect(here).toBeGreaterThan(0);
    expect(here).toBeLessThanOrEqual(100);
  });
});
