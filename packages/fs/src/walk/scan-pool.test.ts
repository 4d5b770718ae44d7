import { closeSync, constants, openSync } from "node:fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { useTempDir, writeTree } from "../test-support/harness.js";
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
