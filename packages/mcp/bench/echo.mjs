/**
 * One `echo` call of server-everything (stdio) through Pablo's MCP catalog and a kernel session
 * (auto permission, JSONL audit on), against the same call through the bare MCP SDK client, in
 * the same process and run. Prints the ratio and the target it is held to: at most 1.1 (wall).
 *
 * The ratio is the median of per-round ratios, each round timing every series back to back in an
 * order that rotates from round to round, so drift and machine load hit all series alike. Both
 * servers and this process are warmed up first (`BENCH_WARMUP` calls per series, alternating):
 * server-everything and the SDK take a few thousand calls to reach their steady speed, and a
 * shorter warm-up made the ratio wander from run to run.
 *
 * A control series, a second bare SDK client with a server process of its own, prints the ratio
 * two identical setups show in the same run. On the 2-vCPU build VM it was 1.05 to 1.50: a round
 * trip costs what the scheduler's placement of the client and the server makes it (a wake-up
 * across CPUs costs tens of microseconds there), so a ratio only means something beside it.
 * The whole bench then runs once more with every process pinned to one CPU (`taskset`, where it
 * exists; `BENCH_PINNED=0` skips that pass): no wake-up crosses CPUs, the control ratio stays
 * near 1 (0.90 to 1.09 in runs here), and the layers separate run after run. The target is held
 * against both passes; the first is how a host runs, the second is what Pablo's own work costs.
 *
 * Three informational series separate where Pablo's time goes, layer by layer:
 * - the bare SDK client over Pablo's stdio transport (own process group, PID namespace, cleared
 *   environment);
 * - the catalog's tool called directly, without the kernel (adapter, connection, result mapping);
 * - the kernel session without an audit sink (dispatch pipeline without the JSONL store).
 *
 * Plain JavaScript run by plain node against the built package (`pnpm build` first), as a host
 * runs it: under tsx a loader thread shares the process and every dynamic import() goes through
 * it, which is not what a host pays.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CatalogBuilder, createKernel } from "@pablo/kernel";
import { JsonlAuditSink } from "@pablo/kernel/node";
import { openMcpCatalog } from "../dist/index.js";
import { ProcessStdioTransport } from "../dist/stdio-transport.js";

const TARGET = 1.1;
const TASKSET = "/usr/bin/taskset";
/** Set in the pinned pass, to the CPU it runs on. */
const PINNED_CPU = process.env["BENCH_PINNED_CPU"];
const CALLS = Number(process.env["BENCH_CALLS"] ?? 300);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 11);
const WARMUP_CALLS = Number(process.env["BENCH_WARMUP"] ?? 4000);
const ENTRY = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const SERVER = { command: process.execPath, args: [ENTRY, "stdio"] };
const noCredentials = {
  resolve: () => ({ ok: false, code: "CREDENTIAL_NOT_FOUND", message: "none" }),
  resolvedValues: () => [],
};
/**
 * @typedef {{ wall: number, cpu: number }} Round wall-clock and this process's CPU microseconds
 *   per call (CPU is the client-side cost, less sensitive to load)
 * @typedef {{ label: string, call: (i: number) => Promise<void>, rounds: Round[] }} Series
 */

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "pablo-mcp-bench-"));
  const audit = new JsonlAuditSink(join(dir, "audit.jsonl"));
  const bareClient = await sdkClient(new StdioClientTransport({ ...SERVER, env: {} }));
  const controlClient = await sdkClient(new StdioClientTransport({ ...SERVER, env: {} }));
  const transportClient = await sdkClient(
    new ProcessStdioTransport({
      ...SERVER,
      cwd: "/",
      env: {},
      maxMessageBytes: 8 * 1024 * 1024,
      shutdownTimeoutMs: 2_000,
    }),
  );
  // One catalog per series that uses it, so no two series share a server process.
  const open = () =>
    openMcpCatalog({
      servers: { everything: { transport: "stdio", ...SERVER } },
      credentials: noCredentials,
    });
  const catalogs = [await open(), await open(), await open()];
  const [pablo, kernelOnly, direct] = await Promise.all([
    sessionCall(catalogs[0], { audit }),
    sessionCall(catalogs[1], {}),
    directCall(catalogs[2]),
  ]);
  const bare = series("bare SDK client (reference)", sdkCall(bareClient));
  const target = series("Pablo catalog + kernel + JSONL audit", pablo);
  const control = series("bare SDK client, another server (control)", sdkCall(controlClient));
  const informational = [
    series("bare SDK client over Pablo's stdio transport", sdkCall(transportClient)),
    series("Pablo catalog's tool, no kernel", direct),
    series("Pablo catalog + kernel, no audit sink", kernelOnly),
  ];
  const all = [bare, target, control, ...informational];
  for (let done = 0; done < WARMUP_CALLS; done += CALLS) for (const s of all) await timed(s.call);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < all.length; k++) {
      const s = all[(round + k) % all.length];
      s.rounds.push(await timed(s.call));
    }
  }
  await bareClient.close();
  await controlClient.close();
  await transportClient.close();
  await Promise.all(catalogs.map((c) => c.close()));
  audit.close();
  rmSync(dir, { recursive: true, force: true });
  report(bare, target, control, informational);
}
function report(bare, target, control, informational) {
  const us = (n) => `${n.toFixed(0).padStart(5)} \xB5s`;
  const line = (s) =>
    `  ${s.label.padEnd(46)} wall ${us(medianOf(s, "wall"))}/call, client CPU ${us(medianOf(s, "cpu"))}/call`;
  const ratios = (key, of = target) => of.rounds.map((r, i) => r[key] / bare.rounds[i][key]);
  const wall = ratios("wall");
  const cpu = ratios("cpu");
  const controlWall = ratios("wall", control);
  console.log(
    `echo, ${ROUNDS} rounds x ${CALLS} calls per series after ${WARMUP_CALLS} warm-up calls each (load average ${loadavg()[0]?.toFixed(1)}; ${PINNED_CPU === undefined ? "processes free to run on any CPU, as a host runs" : `every process pinned to CPU ${PINNED_CPU}`})`,
  );
  console.log(line(bare));
  console.log(line(target));
  console.log(line(control));
  console.log("  informational, layer by layer:");
  for (const s of informational) console.log(line(s));
  if (process.env["BENCH_VERBOSE"]) {
    for (const [i, r] of target.rounds.entries()) {
      const b = bare.rounds[i];
      console.log(
        `  round ${i}: bare ${us(b.wall)}, pablo ${us(r.wall)}, ratio ${(r.wall / b.wall).toFixed(2)}`,
      );
    }
  }
  console.log(
    `ratio (pablo / bare), wall: ${median(wall).toFixed(3)} (target <= ${TARGET}: ${median(wall) <= TARGET ? "met" : "NOT met"}; rounds ${Math.min(...wall).toFixed(2)}-${Math.max(...wall).toFixed(2)})`,
  );
  console.log(
    `ratio (pablo / bare), client CPU: ${median(cpu).toFixed(3)} (rounds ${Math.min(...cpu).toFixed(2)}-${Math.max(...cpu).toFixed(2)})`,
  );
  console.log(
    `ratio (control / bare), wall: ${median(controlWall).toFixed(3)} (the same setup twice, so what this run's noise alone makes of a ratio; rounds ${Math.min(...controlWall).toFixed(2)}-${Math.max(...controlWall).toFixed(2)})`,
  );
}
async function sdkClient(transport) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}
function sdkCall(client) {
  return async (i) => {
    const result = await client.callTool({ name: "echo", arguments: { message: `m${i}` } });
    if (result.isError) throw new Error("echo failed");
  };
}
async function sessionCall(catalog, kernel) {
  const builder = new CatalogBuilder();
  await builder.addProviders(catalog.providers);
  const session = createKernel(kernel).openSession({
    catalog: builder.build(),
    permission: { mode: "auto" },
  });
  return async (i) => {
    const { result } = await session.call({ tool: "mcp_everything_echo", args: `{"message":"m${i}"}` });
    if (!result.ok) throw new Error(`pablo echo failed: ${JSON.stringify(result)}`);
  };
}
/** The catalog's own tool with a minimal context, made per call as the kernel makes it. */
async function directCall(catalog) {
  const tool = catalog.providers[0]?.tools().find((t) => t.name === "mcp/everything/echo");
  const base = {
    sessionId: "bench",
    turnId: "bench",
    promptId: "bench",
    mode: "agent",
    deadline: Number.POSITIVE_INFINITY,
    requester: void 0,
    progress: () => void 0,
    authorize: () => ({ verdict: "allow", layer: "default", rule: "default", reason: "bench" }),
    state: (_key, init) => init(),
    narrow: () => void 0,
  };
  return async (i) => {
    const ctx = {
      ...base,
      callId: `c${i}`,
      // As the kernel does: the signal is made only if read, and the tool listens through onAbort.
      get signal() {
        return new AbortController().signal;
      },
      onAbort: () => () => void 0,
    };
    const result = await tool.execute({ message: `m${i}` }, ctx);
    if (!result.ok) throw new Error(`direct echo failed: ${JSON.stringify(result)}`);
  };
}
function series(label, call) {
  return { label, call, rounds: [] };
}
async function timed(call) {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await call(i);
  const used = process.cpuUsage(cpu);
  return {
    wall: Number(process.hrtime.bigint() - started) / 1e3 / CALLS,
    cpu: (used.user + used.system) / CALLS,
  };
}
function medianOf(s, key) {
  return median(s.rounds.map((r) => r[key]));
}
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
await main();
runPinnedPass();

/** The same bench again under `taskset`, every process on the first CPU this one may use. */
function runPinnedPass() {
  if (PINNED_CPU !== undefined || process.env["BENCH_PINNED"] === "0") return;
  if (!existsSync(TASKSET)) return void console.log(`pinned pass skipped: no ${TASKSET}`);
  const cpu = firstAllowedCpu();
  if (cpu === undefined) return void console.log("pinned pass skipped: no CPU list in /proc/self/status");
  const pass = spawnSync(TASKSET, ["-c", cpu, process.execPath, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, BENCH_PINNED_CPU: cpu },
  });
  if (pass.status !== 0) process.exitCode = pass.status ?? 1;
}
function firstAllowedCpu() {
  const list = /^Cpus_allowed_list:\s*(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"));
  return list?.[1];
}
