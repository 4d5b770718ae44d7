/**
 * One `echo` call of server-everything (stdio) through Pablo's MCP catalog and a kernel session
 * (auto permission, JSONL audit on), against the same call through the bare MCP SDK client, in
 * the same process and run. Rounds alternate between the two so machine load hits both alike.
 * Prints per-call medians and the ratio; the target is at most 1.1.
 *
 * A third, informational series runs the bare SDK client over Pablo's own stdio transport (server
 * in its own process group and session, cleared environment), separating the cost of that
 * isolation from the cost of the catalog and kernel.
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
import { ProcessStdioTransport } from "../dist/stdio-transport.js";

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

  const isolatedClient = new Client({ name: "bench-isolated", version: "1.0.0" });
  await isolatedClient.connect(
    new ProcessStdioTransport({
      command: process.execPath,
      args: [ENTRY, "stdio"],
      cwd: "/",
      env: {},
      maxMessageBytes: 8 * 1024 * 1024,
      shutdownTimeoutMs: 2_000,
    }),
  );
  const isolatedCall = async (i: number) => {
    const result = await isolatedClient.callTool({ name: "echo", arguments: { message: `m${i}` } });
    if (result.isError) throw new Error("isolated echo failed");
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
  await timed(isolatedCall);
  await timed(pabloCall);
  const bareRounds: Round[] = [];
  const isolatedRounds: Round[] = [];
  const pabloRounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bareRounds.push(await timed(bareCall));
    isolatedRounds.push(await timed(isolatedCall));
    pabloRounds.push(await timed(pabloCall));
  }
  await bareClient.close();
  await isolatedClient.close();
  await mcp.close();
  audit.close();
  rmSync(dir, { recursive: true, force: true });

  const bare = summarize(bareRounds);
  const isolated = summarize(isolatedRounds);
  const pablo = summarize(pabloRounds);
  const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`.padStart(8);
  console.log(
    `medians of ${ROUNDS} alternating rounds x ${CALLS} calls (load average ${loadavg()[0]?.toFixed(1)})`,
  );
  console.log(`echo via bare SDK client:      wall ${us(bare.wall)}/call, client CPU ${us(bare.cpu)}/call`);
  console.log(`echo via Pablo catalog+kernel: wall ${us(pablo.wall)}/call, client CPU ${us(pablo.cpu)}/call`);
  console.log(`ratio (pablo / bare), wall: ${(pablo.wall / bare.wall).toFixed(3)} (target <= 1.1)`);
  console.log(`ratio (pablo / bare), client CPU: ${(pablo.cpu / bare.cpu).toFixed(3)}`);
  console.log(
    `informational: bare SDK client over Pablo's process-group transport: wall ${us(isolated.wall)}/call, client CPU ${us(isolated.cpu)}/call; catalog+kernel alone, wall ratio ${(pablo.wall / isolated.wall).toFixed(3)}`,
  );
}

function summarize(rounds: readonly Round[]): { wall: number; cpu: number } {
  return { wall: median(rounds.map((r) => r.wallMs)), cpu: median(rounds.map((r) => r.cpuMs)) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

await main();
