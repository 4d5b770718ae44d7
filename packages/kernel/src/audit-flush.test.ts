import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StoredAuditRecord } from "./audit-chain.js";
import { JsonlAuditStore } from "./audit-jsonl.js";
import { useTempDir } from "./test-support/temp-dir.js";

const tempFile = () => join(useTempDir("pablo-audit-flush-"), "audit.jsonl");

const indexModule = new URL("./index.ts", import.meta.url).pathname;
const nodeModule = new URL("./node.ts", import.meta.url).pathname;
const toolsModule = new URL("./test-support/tools.ts", import.meta.url).pathname;

/**
 * A child process that makes `calls` calls through a kernel session with the batching JSONL store,
 * then ends as `how` says, without closing or flushing the store itself.
 */
function childScript(how: string): string {
  return `
    import { createCatalog, createKernel, defineTool, ok } from ${JSON.stringify(indexModule)};
    import { JsonlAuditStore } from ${JSON.stringify(nodeModule)};
    import { echoTool, sleep } from ${JSON.stringify(toolsModule)};
    import Type from "typebox";
    const slowTool = () => defineTool({
      name: "test.slow", description: "Waits.", summary: "Waits",
      inputSchema: Type.Object({ ms: Type.Integer() }, { additionalProperties: false }),
      risk: "low", effects: [], category: "read", mutates: false,
      execute: async (args, ctx) => { await sleep(args.ms, ctx.signal).catch(() => undefined); return ok(null); },
    });
    const [path, calls] = [process.argv[1], Number(process.argv[2])];
    const store = new JsonlAuditStore(path);
    const session = createKernel({ audit: store }).openSession({
      catalog: createCatalog([echoTool(), slowTool()]),
      permission: { mode: "auto" },
    });
    for (let i = 0; i < calls; i++) await session.call({ tool: "test_echo", args: { text: "n" + i }, callId: "c" + i });
    ${how}
  `;
}

/** Runs a child to its end; resolves with its exit code or signal and whatever it printed. */
function runChild(
  script: string,
  args: string[],
): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      // The cancelled call's outcome is back: end the process the hard way, no exit hook runs.
      if (out.includes("cancelled-outcome")) child.kill("SIGKILL");
    });
    child.stderr.resume();
    child.on("exit", (code, signal) => resolve({ code, signal, out }));
  });
}

function storedCallIds(path: string): string[] {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => (JSON.parse(line) as StoredAuditRecord).callId);
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);

describe("the batching JSONL store keeps every record when its process ends", () => {
  it("on a plain exit, a process.exit from a fault handler and an uncaught exception", async () => {
    const endings = {
      "falls off the end": "",
      "process.exit in a fault handler": `process.on("uncaughtException", () => process.exit(3)); setTimeout(() => { throw new Error("fault"); }, 0);`,
      "uncaught exception": `throw new Error("crash");`,
      // More calls than one batch holds, ended before the turn is over.
      "process.exit right after the calls": "process.exit(0);",
    };
    for (const [ending, how] of Object.entries(endings)) {
      const path = tempFile();
      const calls = ending === "process.exit right after the calls" ? 600 : 40;
      const run = await runChild(childScript(how), [path, String(calls)]);
      expect({ ending, exited: run.code !== null }).toEqual({ ending, exited: true });
      expect({ ending, ids: storedCallIds(path) }).toEqual({ ending, ids: ids(calls) });
      expect(await new JsonlAuditStore(path).verify()).toMatchObject({ ok: true, records: calls });
    }
  }, 60_000);

  it("on a process.exit while a steady stream's last record waits for its batching window", async () => {
    const path = tempFile();
    // The first records are written on the next check phase; the late one, inside the window
    // that write opened, waits for a timer that process.exit never lets fire.
    const how = `
      await new Promise(setImmediate);
      await session.call({ tool: "test_echo", args: { text: "late" }, callId: "c" + calls });
      await new Promise(setImmediate);
      process.exit(0);
    `;
    const run = await runChild(childScript(how), [path, "3"]);
    expect(run.code).toBe(0);
    expect(storedCallIds(path)).toEqual(ids(4));
    expect(await new JsonlAuditStore(path).verify()).toMatchObject({ ok: true, records: 4 });
  }, 60_000);

  it("writes a cancelled call's record, and every one queued before it, before the outcome is returned", async () => {
    const path = tempFile();
    // A call cancelled mid-run; once its outcome is printed the parent SIGKILLs the child, so only
    // what was written by then is in the file.
    const how = `
      const controller = new AbortController();
      const pending = session.call({ tool: "test_slow", args: { ms: 10000 }, callId: "cancelled", signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      const { result } = await pending;
      process.stdout.write("cancelled-outcome " + result.error.code + "\\n");
      await new Promise((resolve) => setTimeout(resolve, 60_000));
    `;
    const run = await runChild(childScript(how), [path, "10"]);
    expect(run.signal).toBe("SIGKILL");
    expect(run.out).toContain("cancelled-outcome TOOL_CANCELLED");
    expect(storedCallIds(path)).toEqual([...ids(10), "cancelled"]);
    expect(await new JsonlAuditStore(path).verify()).toMatchObject({ ok: true, records: 11 });
  }, 30_000);

  it("lets two processes dispatching at once extend one valid chain", async () => {
    const path = tempFile();
    const runs = await Promise.all([1, 2].map(() => runChild(childScript(""), [path, "300"])));
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    const stored = storedCallIds(path);
    expect(stored).toHaveLength(600);
    expect(await new JsonlAuditStore(path).verify()).toMatchObject({
      ok: true,
      records: 600,
      head: { seq: 599 },
    });
  }, 60_000);
});
