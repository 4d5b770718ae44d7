import { readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";

/** Whether a PID is a live process (a zombie counts as ended). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Waits until `read` returns something, polling, or fails after `ms`. */
export async function eventually<T>(
  read: () => T | undefined | Promise<T | undefined>,
  ms = 5_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("condition not met in time");
    await delay(10);
  }
}

/** PIDs written one per line into a file, once it has `count` of them. */
export function readPids(path: string, count: number): number[] | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const pids = text
    .split(/\s+/)
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
  return pids.length >= count ? pids : undefined;
}

/** Ends leftover processes of a failed test so they never outlive the suite. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
