import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";

/**
 * Ends a child started with `detached: true` (so it leads its own process group) and everything
 * left in that group: close stdin and wait, SIGTERM the group and wait, SIGKILL the group, then
 * wait until the leader is reaped and no live member of the group remains. Resolves `false` when
 * that could not be proven within the waits. Processes that left the group themselves (setsid)
 * are out of reach; that is a limit of process groups.
 */
export async function endProcessGroup(child: ChildProcess, graceMs: number): Promise<boolean> {
  const pgid = child.pid;
  if (pgid === undefined) return true;
  const exited = exitPromise(child);
  try {
    child.stdin?.end();
  } catch {
    // A closed pipe is fine: the goal is only to signal end of input.
  }
  if (!(await within(exited, graceMs))) {
    signalGroup(pgid, "SIGTERM");
    if (!(await within(exited, graceMs))) signalGroup(pgid, "SIGKILL");
  }
  // Descendants may still hold the group after the leader is gone; they are killed while found.
  const reaped = await within(exited, graceMs);
  return reaped && (await groupEmptyWithin(pgid, graceMs));
}

/** Whether any non-zombie process is still in group `pgid`. */
export function groupAlive(pgid: number): boolean {
  if (process.platform === "linux") {
    for (const entry of safeReaddir("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = safeRead(`/proc/${entry}/stat`);
      if (!stat) continue;
      // Fields after the parenthesised command: state, ppid, pgrp, ...
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(rest[2]) === pgid && rest[0] !== "Z" && rest[0] !== "X") return true;
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function exitPromise(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  const controller = new AbortController();
  const timeout = delay(ms, false, { signal: controller.signal }).catch(() => false);
  const done = await Promise.race([promise.then(() => true), timeout]);
  controller.abort();
  return done;
}

async function groupEmptyWithin(pgid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() > until) return false;
    signalGroup(pgid, "SIGKILL");
    await delay(10);
  }
  return true;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already empty.
  }
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function safeRead(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
