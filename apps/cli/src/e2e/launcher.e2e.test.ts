/**
 * The shell's launcher as a long-lived host runs it: `pablo mcp serve` starts its first command
 * directly and every later one through one perl launcher it keeps, and once the client goes away
 * neither the launcher nor its private socket directory is left. Observed from outside, in /proc,
 * the way a person would look for a leftover process.
 */
import { readdirSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { freshHome, PABLO_BIN, personEnv, processesWith } from "./harness.js";

describe("the shell launcher under pablo mcp serve", () => {
  it("runs later commands under one perl launcher and leaves no launcher or socket directory at exit", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const tmp = home.dir("tmp");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [PABLO_BIN, "mcp", "serve", "--permission", "auto"],
      cwd: workspace,
      env: personEnv(home, { TMPDIR: tmp }),
      stderr: "ignore",
    });
    const client = new Client({ name: "launcher-e2e", version: "1.0.0" });
    await client.connect(transport);
    onTestFinished(() => client.close());
    const server = transport.pid;
    if (server === null) throw new Error("the server has no pid");

    for (let run = 0; run < 3; run++) {
      const result = await client.callTool({ name: "shell_run", arguments: { command: `echo run-${run}` } });
      expect(result.isError ?? false).toBe(false);
      expect(JSON.stringify(result.content)).toContain(`run-${run}`);
    }
    const launchers = childrenOf(server).filter((pid) => commOf(pid) === "perl");
    expect(launchers).toHaveLength(1);
    const launcher = launchers[0] as number;
    expect(launcherDirs(tmp)).toHaveLength(1);

    // A command that is running now descends from that launcher, not from the server itself.
    const marker = `3.${process.pid}${Date.now() % 1000}`;
    const running = client.callTool({ name: "shell_run", arguments: { command: `sleep ${marker}` } });
    await expect.poll(() => processesWith(`sleep ${marker}`).length, { timeout: 15_000 }).toBeGreaterThan(0);
    const sleeper = Number.parseInt(processesWith(`sleep ${marker}`)[0] ?? "", 10);
    expect(ancestorsOf(sleeper)).toContain(launcher);
    const slept = await running;
    expect(slept.isError ?? false).toBe(false);

    await client.close();
    await expect.poll(() => isAlive(server) || isAlive(launcher), { timeout: 10_000 }).toBe(false);
    expect(launcherDirs(tmp)).toEqual([]);
  });
});

function launcherDirs(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => name.startsWith("pablo-launcher-"));
}

function childrenOf(parent: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => parentOf(pid) === parent);
}

function ancestorsOf(pid: number): number[] {
  const chain: number[] = [];
  for (let at = parentOf(pid); at !== undefined && at > 1; at = parentOf(at)) chain.push(at);
  return chain;
}

/** Field 4 of /proc/PID/stat, read after the parenthesized name (which may hold spaces). */
function parentOf(pid: number): number | undefined {
  const stat = readProc(pid, "stat");
  if (stat === undefined) return undefined;
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

function commOf(pid: number): string | undefined {
  return readProc(pid, "comm")?.trim();
}

function isAlive(pid: number): boolean {
  const stat = readProc(pid, "stat");
  // A zombie has exited; only its parent's wait is missing.
  return stat !== undefined && stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}
