import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MiB } from "./support.js";

/** The built `pablo` binary of this repository. */
export const CLI = join(dirname(fileURLToPath(import.meta.url)), "../../../apps/cli/dist/main.js");

export interface ProcessTimes {
  /** Median wall time of the whole `pablo call fs.search ... --json` process. */
  readonly callMs: number;
  /** Median wall time of the `pablo --help` process: the CLI's bare start-up. */
  readonly helpMs: number;
  /**
   * Median wall time of the same call over a tree of one small file: the CLI's start-up plus what
   * `pablo call` does besides the search (config, catalog, kernel, audit, output).
   */
  readonly tinyMs: number;
  /** Median of the call's own `totalMs` in its audit record: from the kernel's view, after start-up. */
  readonly insideMs: number;
  /** Median wall time of the same search by `rg` as a process. */
  readonly rgMs: number;
  readonly matches: number;
}

/**
 * Times fs.search the way a user meets it, as whole processes in one interleaved run: `pablo call`
 * (fresh HOME and state directory, so the audit log it writes is read back here), `pablo --help`,
 * ripgrep, and the same call over a one-file tree (what the CLI spends around any call). Each
 * process starts cold: the worker threads start inside the call.
 */
export function cliSearchTimes(root: string, query: string, runs: number): ProcessTimes {
  const state = mkdtempSync(join(tmpdir(), "pablo-fs-bench-state-"));
  const env = { PATH: process.env.PATH ?? "", HOME: state, XDG_STATE_HOME: state };
  const args = JSON.stringify({ query, max_matches: 10_000 });
  const timed = (command: string, argv: string[], cwd = root) => {
    const started = performance.now();
    const run = spawnSync(command, argv, { cwd, env, maxBuffer: 64 * MiB });
    const ms = performance.now() - started;
    if (run.status !== 0 && command !== "rg")
      throw new Error(`${argv.join(" ")}: ${run.stdout}${run.stderr}`);
    return { ms, stdout: run.stdout.toString() };
  };
  const times = {
    call: [] as number[],
    help: [] as number[],
    tiny: [] as number[],
    inside: [] as number[],
    rg: [] as number[],
  };
  const tinyTree = mkdtempSync(join(tmpdir(), "pablo-fs-bench-tiny-"));
  writeFileSync(join(tinyTree, "one.txt"), `${query}\n`);
  let matches = 0;
  try {
    for (let i = 0; i <= runs; i++) {
      const call = timed(process.execPath, [CLI, "call", "fs.search", "--args", args, "--json"]);
      const help = timed(process.execPath, [CLI, "--help"]);
      const rg = timed("rg", ["-F", "--no-ignore", "--hidden", query, "."]);
      matches = (JSON.parse(call.stdout) as { data: { matches: unknown[] } }).data.matches.length;
      const inside = lastAuditTotalMs(state);
      const tiny = timed(process.execPath, [CLI, "call", "fs.search", "--args", args, "--json"], tinyTree);
      if (i === 0) continue; // the first round warms the page cache and the binaries
      times.call.push(call.ms);
      times.help.push(help.ms);
      times.tiny.push(tiny.ms);
      times.rg.push(rg.ms);
      times.inside.push(inside);
    }
  } finally {
    rmSync(state, { recursive: true, force: true });
    rmSync(tinyTree, { recursive: true, force: true });
  }
  return {
    callMs: median(times.call),
    helpMs: median(times.help),
    tinyMs: median(times.tiny),
    insideMs: median(times.inside),
    rgMs: median(times.rg),
    matches,
  };
}

export function cliAvailable(): boolean {
  return existsSync(CLI);
}

function lastAuditTotalMs(state: string): number {
  const lines = readFileSync(join(state, "pablo", "audit.jsonl"), "utf8")
    .trim()
    .split("\n");
  const record = JSON.parse(lines[lines.length - 1] as string) as { tool: string; totalMs: number };
  if (record.tool !== "fs.search") throw new Error(`the last audit record is ${record.tool}`);
  return record.totalMs;
}

function median(list: number[]): number {
  return list.sort((x, y) => x - y)[Math.floor(list.length / 2)] as number;
}
