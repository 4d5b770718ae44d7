import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATCH_WINDOW_MS } from "./audit-jsonl.js";
import { createCatalog, createKernel, defineLayer, type StoredAuditRecord } from "./index.js";
import { JsonlAuditStore } from "./node.js";
import { useTempDir } from "./test-support/temp-dir.js";
import { echoTool, writeTool } from "./test-support/tools.js";

const tempFile = () => join(useTempDir("pablo-audit-"), "audit.jsonl");

async function recordCalls(path: string, n: number, options = {}): Promise<void> {
  const store = new JsonlAuditStore(path, options);
  const session = createKernel({ audit: store }).openSession({
    sessionId: "s1",
    catalog: createCatalog([echoTool()]),
    layers: [defineLayer({ id: "deployment" })],
  });
  for (let i = 0; i < n; i++)
    await session.call({ tool: "test_echo", args: { text: `n${i}` }, callId: `c${i}` });
  store.close();
}

const lines = (path: string) => readFileSync(path, "utf8").trimEnd().split("\n");
const verify = (path: string) => new JsonlAuditStore(path).verify();

describe("the JSONL audit store", () => {
  it("writes a lone record on the next check phase, and a steady stream once per batching window", async () => {
    const path = tempFile();
    const store = new JsonlAuditStore(path);
    const session = createKernel({ audit: store }).openSession({ catalog: createCatalog([echoTool()]) });
    const countLines = () => readFileSync(path, "utf8").split("\n").filter(Boolean).length;
    await session.call({ tool: "test_echo", args: { text: "alone" } });
    // The window runs from the lone record's write, which happens after this moment.
    const started = Date.now();
    await new Promise(setImmediate);
    expect(countLines()).toBe(1);
    // Calls that each yield to the event loop, as calls to a tool server do, inside one window.
    for (let i = 0; i < 5; i++) {
      await session.call({ tool: "test_echo", args: { text: `stream ${i}` } });
      await new Promise(setImmediate);
    }
    // On a machine too loaded to make five calls in the window, the batch may be out already.
    if (Date.now() - started < BATCH_WINDOW_MS - 1) expect(countLines()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, BATCH_WINDOW_MS + 5));
    expect(countLines()).toBe(6);
    expect((await store.verify()).ok).toBe(true);
    store.close();
  });

  it("writes each record chained, with the catalog and layer hashes in force", async () => {
    const path = tempFile();
    await recordCalls(path, 3);
    const records = lines(path).map((l) => JSON.parse(l) as StoredAuditRecord);
    expect(records.map((r) => r.seq)).toEqual([0, 1, 2]);
    expect(records[1]?.prev).toBe(records[0]?.hash);
    expect(records[0]?.catalogHash).toMatch(/^[0-9a-f]{64}$/);
    expect(records[0]?.layers).toEqual([{ id: "deployment", hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(records[0]).toMatchObject({ permissionMode: "ask", subject: { risk: "low", category: "read" } });
    expect(await verify(path)).toMatchObject({ ok: true, records: 3, head: { seq: 2 } });
  });

  it("catches an edited, a removed, a swapped and an inserted line", async () => {
    const path = tempFile();
    await recordCalls(path, 5);
    const original = lines(path);
    const cases: Array<[string[], string, number]> = [
      [original.map((l, i) => (i === 2 ? l.replace('"ok":true', '"ok":false') : l)), "CHANGED", 2],
      [original.filter((_, i) => i !== 2), "REMOVED", 2],
      [[original[0], original[3], original[2], original[1], original[4]] as string[], "REORDERED", 1],
      [[...original.slice(0, 2), original[1] as string, ...original.slice(2)], "INSERTED", 2],
    ];
    for (const [tampered, what, position] of cases) {
      writeFileSync(path, `${tampered.join("\n")}\n`);
      const report = await verify(path);
      expect({ what, problem: report.problem }).toMatchObject({
        what,
        problem: { code: `AUDIT_RECORD_${what}`, position },
      });
    }
  });

  it("continues the chain after a line cut short by a crash", async () => {
    const path = tempFile();
    await recordCalls(path, 2);
    appendFileSync(path, '{"type":"tool.call","at":"20');
    expect(await verify(path)).toMatchObject({ ok: true });
    await recordCalls(path, 2);
    // The torn line now sits in the middle, closed by the next writer: listed, and skipped.
    expect(await verify(path)).toMatchObject({ ok: true, unreadable: [2], head: { seq: 3 } });
    const records = lines(path)
      .filter((l) => l.endsWith("}"))
      .map((l) => JSON.parse(l) as StoredAuditRecord);
    expect(records.map((r) => r.seq)).toEqual([0, 1, 2, 3]);
    expect(records[2]?.prev).toBe(records[1]?.hash);
  });

  it("skips JSON lines that are no records: null, 5 and [1,2] as unreadable, {} and a record without its time in every read", async () => {
    const path = tempFile();
    await recordCalls(path, 2);
    appendFileSync(path, 'null\n5\n[1,2]\n"text"\n');
    expect(await verify(path)).toMatchObject({ ok: true, records: 6, unreadable: [2, 3, 4, 5] });
    await recordCalls(path, 1);
    const [first] = lines(path);
    const { at: _at, ...timeless } = JSON.parse(first as string) as StoredAuditRecord;
    appendFileSync(path, `{}\n${JSON.stringify(timeless)}\n`);
    const read: StoredAuditRecord[] = [];
    for await (const record of new JsonlAuditStore(path).records()) read.push(record);
    expect(read.map((r) => r.callId)).toEqual(["c0", "c1", "c0"]);
    // `{}` is no torn write: it was put there, and verify says the chain is broken at it.
    expect(await verify(path)).toMatchObject({
      ok: false,
      problem: { code: "AUDIT_RECORD_CHANGED", position: 7 },
    });
  });

  it("keeps declared accesses redacted, or none when the deployment says so", async () => {
    const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    for (const accesses of ["redacted", "none"] as const) {
      const path = tempFile();
      const store = new JsonlAuditStore(path, { accesses });
      const session = createKernel({ audit: store }).openSession({
        catalog: createCatalog([writeTool()]),
        permission: { mode: "auto" },
      });
      await session.call({ tool: "test_write", args: { path: `/w/token=${secret}` } });
      store.close();
      const text = readFileSync(path, "utf8");
      expect(text).not.toContain(secret);
      const [record] = lines(path).map((l) => JSON.parse(l) as StoredAuditRecord);
      if (accesses === "none") expect(record?.accesses).toBeUndefined();
      else
        expect(record?.accesses).toEqual([
          { dimension: "fs.write", path: "/w/[REDACTED]", root: "workspace" },
        ]);
    }
  });

  it("lets concurrent processes extend one chain without interleaving", async () => {
    const path = tempFile();
    const nodeModule = new URL("./node.ts", import.meta.url).pathname;
    const script = `
      import { JsonlAuditStore } from ${JSON.stringify(nodeModule)};
      const store = new JsonlAuditStore(process.argv[1]);
      const pad = "p".repeat(5000);
      for (let i = 0; i < 100; i++) store.write({ type: "tool.call", callId: process.pid + "-" + i, argsPreview: pad });
    `;
    const writers = [1, 2, 3, 4].map(
      () =>
        new Promise<number>((resolve) => {
          const child = spawn(
            process.execPath,
            ["--import", "tsx", "--input-type=module", "-e", script, path],
            {
              stdio: "ignore",
            },
          );
          child.on("exit", (code) => resolve(code ?? -1));
        }),
    );
    expect(await Promise.all(writers)).toEqual([0, 0, 0, 0]);
    expect(lines(path)).toHaveLength(400);
    expect(await verify(path)).toMatchObject({ ok: true, records: 400, head: { seq: 399 } });
  });
});
