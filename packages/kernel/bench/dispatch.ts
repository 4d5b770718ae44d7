/**
 * Full dispatch overhead of a no-op tool (auto permission, JSONL audit on, tracing off) against a
 * call of the same no-op tool through an MCP SDK client and server joined by the SDK's in-memory
 * transport, in the same process and run. Prints the ratio; the target is at most 0.5.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import Type from "typebox";
import { createCatalog, createKernel, defineTool, ok } from "../dist/index.js";
import { JsonlAuditSink } from "../dist/node.js";

const CALLS = Number(process.env["BENCH_CALLS"] ?? 20_000);
const ROUNDS = 7;

// One store for the whole run, as a host opens its audit log once: a busy store moves its chaining
// and writing to a worker thread, which starts once per store.
const dir = mkdtempSync(join(tmpdir(), "pablo-bench-"));
const audit = new JsonlAuditSink(join(dir, "audit.jsonl"));

async function pabloRound(): Promise<number> {
  const noop = defineTool({
    name: "bench.noop",
    description: "Does nothing.",
    summary: "No-op",
    inputSchema: Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
    risk: "low",
    effects: [],
    category: "read",
    mutates: false,
    execute: async () => ok(null),
  });
  const session = createKernel({ audit }).openSession({
    catalog: createCatalog([noop]),
    permission: { mode: "auto" },
  });
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) {
    const { result } = await session.call({ tool: "bench_noop", args: `{"n":${i}}` });
    if (!result.ok) throw new Error("bench call failed");
  }
  // Timed until every record of the round is on disk, written by the worker thread or not.
  audit.flush();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function mcpRound(): Promise<number> {
  const server = new McpServer({ name: "bench", version: "1.0.0" });
  server.registerTool("noop", { description: "Does nothing." }, async () => ({ content: [] }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "bench-client", version: "1.0.0" });
  await client.connect(clientTransport);
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await client.callTool({ name: "noop", arguments: {} });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  await client.close();
  await server.close();
  return elapsed;
}

const pablo: number[] = [];
const mcp: number[] = [];
await pabloRound();
await mcpRound();
for (let round = 0; round < ROUNDS; round++) {
  pablo.push(await pabloRound());
  mcp.push(await mcpRound());
}
audit.close();
rmSync(dir, { recursive: true, force: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const p = median(pablo);
const m = median(mcp);
console.log(`kernel dispatch: ${CALLS} no-op calls, median of ${ROUNDS} rounds`);
console.log(
  `  pablo pipeline (auto permission, JSONL audit): ${p.toFixed(0)} ms (${((p * 1000) / CALLS).toFixed(1)} us/call)`,
);
console.log(
  `  MCP SDK in-memory round trip:                  ${m.toFixed(0)} ms (${((m * 1000) / CALLS).toFixed(1)} us/call)`,
);
console.log(`  ratio pablo / mcp = ${(p / m).toFixed(3)} (target <= 0.5)`);
