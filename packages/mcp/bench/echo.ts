/**
 * One `echo` call of server-everything (stdio) through Pablo's MCP catalog and a kernel session
 * (auto permission, JSONL audit on), against the same call through the bare MCP SDK client, in
 * the same process and run. Rounds alternate between the two so machine load hits both alike.
 * Prints per-call medians and the ratio; the target is at most 1.1.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CatalogBuilder, createKernel, type Session } from "@pablo/kernel";
import { JsonlAuditSink } from "@pablo/kernel/node";
import { openMcpCatalog } from "../dist/index.js";

const CALLS = Number(process.env["BENCH_CALLS"] ?? 300);
const ROUNDS = 7;
const ENTRY = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const noCredentials = {
  resolve: () => ({ ok: false as const, code: "CREDENTIAL_NOT_FOUND" as const, message: "none" }),
  resolvedValues: () => [],
};

interface Round {
  /** Wall-clock milliseconds per call. */
  readonly wallMs: number;
  /** This process's CPU milliseconds per call: the client-side cost, insensitive to machine load. */
  readonly cpuMs: number;
}

async function timed(call: (i: number) => Promise<void>): Promise<Round> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await call(i);
  const used = process.cpuUsage(cpu);
  return {
    wallMs: Number(process.hrtime.bigint() - started) / 1e6 / CALLS,
    cpuMs: (used.user + used.system) / 1000 / CALLS,
  };
}

async function main(): Promise<void> {
  const bareClient = new Client({ name: "bench-bare", version: "1.0.0" });
  await bareClient.connect(
    new StdioClientTransport({ command: process.execPath, args: [ENTRY, "stdio"], env: {} }),
  );
  const bareCall = async (i: number) => {
    const result = await bareClient.callTool({ name: "echo", arguments: { message: `m${i}` } });
    if (result.isError) throw new Error("bare echo failed");
  };

  const dir = mkdtempSync(join(tmpdir(), "pablo-mcp-bench-"));
  const audit = new JsonlAuditSink(join(dir, "audit.jsonl"));
  const mcp = await openMcpCatalog({
    servers: { everything: { transport: "stdio", command: process.execPath, args: [ENTRY, "stdio"] } },
    credentials: noCredentials,
  });
  const builder = new CatalogBuilder();
  await builder.addProviders(mcp.providers);
  const session: Session = createKernel({ audit }).openSession({
    catalog: builder.build(),
    permission: { mode: "auto" },
  });
  const pabloCall = async (i: number) => {
    const { result } = await session.call({ tool: "mcp_everything_echo", args: `{"message":"m${i}"}` });
    if (!result.ok) throw new Error(`pablo echo failed: ${JSON.stringify(result)}`);
  };

  await timed(bareCall);
  await timed(pabloCall);
  const bareRounds: Round[] = [];
  const pabloRounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bareRounds.push(await timed(bareCall));
    pabloRounds.push(await timed(pabloCall));
  }
  await bareClient.close();
  await mcp.close();
  audit.close();
  rmSync(dir, { recursive: true, force: true });

  const bare = { wall: median(bareRounds.map((r) => r.wallMs)), cpu: median(bareRounds.map((r) => r.cpuMs)) };
  const pablo = {
    wall: median(pabloRounds.map((r) => r.wallMs)),
    cpu: median(pabloRounds.map((r) => r.cpuMs)),
  };
  const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`.padStart(8);
  console.log(
    `medians of ${ROUNDS} alternating rounds x ${CALLS} calls (load average ${loadavg()[0]?.toFixed(1)})`,
  );
  console.log(`echo via bare SDK client:      wall ${us(bare.wall)}/call, client CPU ${us(bare.cpu)}/call`);
  console.log(`echo via Pablo catalog+kernel: wall ${us(pablo.wall)}/call, client CPU ${us(pablo.cpu)}/call`);
  console.log(`ratio (pablo / bare), wall: ${(pablo.wall / bare.wall).toFixed(3)} (target <= 1.1)`);
  console.log(`ratio (pablo / bare), client CPU: ${(pablo.cpu / bare.cpu).toFixed(3)}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

await main();
