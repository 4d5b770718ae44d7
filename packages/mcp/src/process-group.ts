import type { ChildProcess } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { endProcesses, procProcessControl, runNamespace } from "@pablo/shell";

const control = procProcessControl();

/**
 * Ends a child started with `detached: true` (so it leads its own process group) and everything
 * left of it: close stdin and wait, then @pablo/shell's `endProcesses` (SIGTERM the group and every
 * member, SIGKILL after the grace period) until the leader is reaped and no live member of the
 * group or of the server's PID namespace remains. Resolves `false` when that could not be proven
 * within the allowance (three grace periods).
 */
export async function endProcessGroup(child: ChildProcess, graceMs: number): Promise<boolean> {
  const pgid = child.pid;
  if (pgid === undefined) return true;
  const startedAt = performance.now();
  const deadline = startedAt + 3 * graceMs;
  // Read first: once the launcher is gone, so is the way to its namespace.
  const namespace = runNamespace(pgid);
  const exited = exitPromise(child);
  try {
    child.stdin?.end();
  } catch {
    // A closed pipe is fine: the goal is only to signal end of input.
  }
  const graceful = await within(exited, graceMs);
  const run = { leader: pgid, startedAt: -Infinity, ...(namespace !== undefined ? { namespace } : {}) };
  const ended = await endProcesses({
    control,
    find: () => control.find(run),
    group: pgid,
    // A server that already exited on end of input leaves only stragglers: straight to SIGKILL.
    graceMs: graceful ? 0 : graceMs,
    deadline,
  });
  const reaped = await within(exited, Math.max(0, deadline - performance.now()));
  return reaped && ended.survivors.length === 0;
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
