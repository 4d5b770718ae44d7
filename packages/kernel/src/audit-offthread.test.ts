/**
 * The JSONL store's worker thread, as built: the worker's module is loaded from `dist` (tests
 * depend on the build), since from the TypeScript sources the store writes on the calling thread.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AuditRecord } from "./audit.js";
import type * as Node from "./node.js";
import { useTempDir } from "./test-support/temp-dir.js";
import { echoTool } from "./test-support/tools.js";

const built = new URL("../dist/", import.meta.url);
const { JsonlAuditStore } = (await import(new URL("node.js", built).href)) as typeof Node;
const { createCatalog, createKernel } = (await import(
  new URL("index.js", built).href
)) as typeof import("./index.js");
const { MAX_PENDING_BATCHES, OffThreadWriter } = (await import(
  new URL("audit-offthread.js", built).href
)) as typeof import("./audit-offthread.js");

/** A fresh directory and the audit log path in it (the lock files sit beside the log). */
function tempLog(): { dir: string; path: string } {
  const dir = useTempDir("pablo-audit-offthread-");
  return { dir, path: join(dir, "audit.jsonl") };
}

const lines = (path: string) => readFileSync(path, "utf8").trimEnd().split("\n");
/** Lock owner files of this process's threads other than the main one: a worker took the lock. */
const workerOwners = (dir: string) =>
  readdirSync(dir).filter(
    (name) => name.startsWith(`audit.jsonl.lock.owner-${process.pid}-`) && !name.endsWith("-0"),
  );

type Store = InstanceType<typeof JsonlAuditStore>;

/** Calls a tool `n` times through a kernel session writing to `store`; returns the next call's number. */
async function callMany(store: Store, n: number, from = 0): Promise<number> {
  const session = createKernel({ audit: store }).openSession({
    sessionId: "s1",
    catalog: createCatalog([echoTool()]),
  });
  for (let i = from; i < from + n; i++)
    await session.call({ tool: "test_echo", args: { text: `n${i}` }, callId: `c${i}` });
  return from + n;
}

/**
 * Keeps calling until the store's worker has written a batch (the calling thread writes while it
 * boots), then `more` calls after that; returns how many calls were made.
 */
async function callUntilOffThread(store: Store, dir: string, more: number): Promise<number> {
  let calls = 0;
  while (workerOwners(dir).length === 0) {
    if (calls > 50_000) throw new Error("the worker never wrote a batch");
    calls = await callMany(store, 100, calls);
    store.flush();
  }
  return callMany(store, more, calls);
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 1000) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the JSONL store's worker thread", () => {
  it("chains and writes a busy session's records on a worker, in call order, and reads wait for it", async () => {
    const { dir, path } = tempLog();
    const store = new JsonlAuditStore(path, { offThread: true });
    const calls = await callUntilOffThread(store, dir, 600);
    const read: string[] = [];
    for await (const record of store.records()) read.push(record.callId);
    expect(read).toEqual(Array.from({ length: calls }, (_, i) => `c${i}`));
    expect(workerOwners(dir)).toHaveLength(1);
    expect(await store.verify()).toMatchObject({ ok: true, records: calls, head: { seq: calls - 1 } });
    expect(store.failures).toBe(0);
    store.close();
  });

  it("starts the worker on its own only once a store has written 256 records", async () => {
    const quiet = tempLog();
    const few = new JsonlAuditStore(quiet.path);
    await callMany(few, 250);
    few.flush();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await callMany(few, 5, 250);
    few.flush();
    expect(workerOwners(quiet.dir)).toEqual([]);
    few.close();

    const busy = tempLog();
    const many = new JsonlAuditStore(busy.path);
    const calls = await callUntilOffThread(many, busy.dir, 300);
    expect(calls).toBeGreaterThan(256);
    many.flush();
    expect(lines(busy.path)).toHaveLength(calls);
    many.close();
  });

  it("never moves a durable store off its calling thread", async () => {
    const { dir, path } = tempLog();
    const store = new JsonlAuditStore(path, { durable: true, offThread: true });
    await callMany(store, 300);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await callMany(store, 300, 300);
    expect(workerOwners(dir)).toEqual([]);
    expect(lines(path)).toHaveLength(600);
    store.close();
  });

  it("extends one chain with a store on the calling thread writing the same file in between", async () => {
    const { dir, path } = tempLog();
    const worker = new JsonlAuditStore(path, { offThread: true });
    const here = new JsonlAuditStore(path, { offThread: false });
    const before = await callUntilOffThread(worker, dir, 0);
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 30; i++) worker.write(record(`w${round}-${i}`));
      await new Promise((resolve) => setImmediate(resolve));
      here.append(record(`h${round}`));
      for (let i = 0; i < 30; i++) here.write(record(`q${round}-${i}`));
    }
    worker.close();
    here.close();
    expect(lines(path)).toHaveLength(before + 20 * 61);
    expect(await new JsonlAuditStore(path).verify()).toMatchObject({ ok: true, records: before + 20 * 61 });
  });

  it("keeps call order when a batch a structured clone refuses is written on the calling thread", async () => {
    const { dir, path } = tempLog();
    const store = new JsonlAuditStore(path, { offThread: true });
    const before = await callUntilOffThread(store, dir, 0);
    const ids: string[] = [];
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 50; i++) store.write(record(`r${round}-${i}`));
      // A function cannot be cloned into the worker; JSON leaves it out of the line.
      if (round === 3) store.write({ ...record("odd"), hook: () => 1 } as unknown as AuditRecord);
      await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < 50; i++) ids.push(`r${round}-${i}`);
      if (round === 3) ids.push("odd");
    }
    store.close();
    expect(
      lines(path)
        .slice(before)
        .map((line) => JSON.parse(line).callId),
    ).toEqual(ids);
    expect(await new JsonlAuditStore(path).verify()).toMatchObject({
      ok: true,
      records: before + ids.length,
    });
  });

  it("drops declared accesses on the worker too when the deployment says none", async () => {
    const { dir, path } = tempLog();
    const store = new JsonlAuditStore(path, { offThread: true, accesses: "none" });
    let written = 0;
    while (workerOwners(dir).length === 0) {
      if (written > 50_000) throw new Error("the worker never wrote a batch");
      store.write({ ...record(`a${written++}`), accesses: [{ dimension: "fs.read", path: "/etc/shadow" }] });
      await new Promise((resolve) => setTimeout(resolve, 1));
      store.flush();
    }
    store.close();
    expect(readFileSync(path, "utf8")).not.toContain("/etc/shadow");
    expect(lines(path)).toHaveLength(written);
  });

  it("writes what the worker holds before the process ends: plain end, process.exit, uncaught exception", async () => {
    const endings = {
      "the event loop running dry": "",
      "process.exit right after the writes": "process.exit(0);",
      "an uncaught exception": `throw new Error("fault");`,
    };
    for (const [ending, code] of Object.entries(endings)) {
      const { path } = tempLog();
      const script = `
        import { readdirSync } from "node:fs";
        import { dirname } from "node:path";
        import { JsonlAuditStore } from ${JSON.stringify(new URL("node.js", built).href)};
        const store = new JsonlAuditStore(process.argv[1], { offThread: true });
        const offThread = () => readdirSync(dirname(process.argv[1])).some((name) => /owner-\\d+-[1-9]/.test(name));
        let written = 0;
        const batch = () => {
          for (let i = 0; i < 100; i++) store.write({ type: "tool.call", callId: "r" + written++, argsPreview: "x".repeat(500) });
        };
        // Until the worker writes, then 20 batches handed to it that the ending gives no time to.
        while (!offThread()) { batch(); await new Promise((resolve) => setTimeout(resolve, 5)); }
        for (let round = 0; round < 20; round++) { batch(); await new Promise((resolve) => setImmediate(resolve)); }
        process.stdout.write(String(written));
        ${code}
      `;
      const { status, written } = await new Promise<{ status: number | null; written: number }>((resolve) => {
        const child = spawn(process.execPath, ["--input-type=module", "-e", script, path], {
          stdio: ["ignore", "pipe", "ignore"],
        });
        let out = "";
        child.stdout.on("data", (chunk) => {
          out += chunk;
        });
        child.on("close", (exitCode) => resolve({ status: exitCode, written: Number(out) }));
      });
      expect({ ending, exited: status !== null }).toEqual({ ending, exited: true });
      expect(written).toBeGreaterThan(2000);
      expect({ ending, lines: lines(path).length }).toEqual({ ending, lines: written });
      expect(await new JsonlAuditStore(path).verify()).toMatchObject({ ok: true, records: written });
    }
  });

  it("hands back every batch a worker that died did not write", async () => {
    const { dir, path } = tempLog();
    // The real worker, with a fault thrown right after it has written the first batch it is sent.
    const dying = realWorkerThen(
      dir,
      `parentPort.on("message", () => { throw new Error("worker fault"); });`,
    );
    const lost: AuditRecord[][] = [];
    const writer = OffThreadWriter.start(path, {}, (batches) => lost.push(...batches), dying);
    expect(writer).toBeDefined();
    await until(() => writer?.ready === true);
    const batches = [[record("b0")], [record("b1"), record("b2")], [record("b3")]];
    for (const batch of batches) expect(writer?.post(batch)).toBe(true);
    const started = Date.now();
    writer?.drain();
    // Seen through the worker's own exit, not after the 30 s a hung worker is given.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(lines(path).map((line) => JSON.parse(line).callId)).toEqual(["b0"]);
    expect(lost.map((batch) => batch.map((r) => r.callId))).toEqual([["b1", "b2"], ["b3"]]);
    // A stopped writer takes nothing more: the store writes on its own thread from then on.
    expect(writer?.post([record("b4")])).toBe(false);
  });

  it("holds the caller up while MAX_PENDING_BATCHES wait for a worker that falls behind", async () => {
    const { dir, path } = tempLog();
    // The real worker, slowed down: 20 ms more per batch.
    const slow = realWorkerThen(
      dir,
      `const pause = new Int32Array(new SharedArrayBuffer(4));
       parentPort.on("message", () => Atomics.wait(pause, 0, 0, 20));`,
    );
    const writer = OffThreadWriter.start(path, {}, () => undefined, slow);
    await until(() => writer?.ready === true);
    for (let i = 0; i < 40; i++) expect(writer?.post([record(`b${i}`)])).toBe(true);
    // Not drained: the last post returned only once no more than the bound were left unwritten.
    expect(MAX_PENDING_BATCHES).toBe(4);
    expect(lines(path).length).toBeGreaterThanOrEqual(40 - MAX_PENDING_BATCHES);
    writer?.close();
    expect(lines(path)).toHaveLength(40);
  });
});

/** A worker module in `dir` that loads the real worker, then runs `then` (with `parentPort` in scope). */
function realWorkerThen(dir: string, then: string): string {
  const path = join(dir, `worker-${readdirSync(dir).length}.mjs`);
  writeFileSync(
    path,
    `import { parentPort } from "node:worker_threads";
     await import(${JSON.stringify(new URL("audit-offthread-worker.js", built).href)});
     ${then}`,
  );
  return path;
}

function record(callId: string): AuditRecord {
  return { type: "tool.call", callId, argsPreview: "x" } as unknown as AuditRecord;
}
