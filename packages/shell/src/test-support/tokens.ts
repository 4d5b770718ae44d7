import { randomInt } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { onTestFinished } from "vitest";
import { isAlive, killAll } from "./processes.js";

/**
 * A `sleep` duration no other process on the machine uses (`1000.123456`), so the host's process
 * table can be searched for the processes a command started, whatever PID namespace they were in.
 * Whatever is still found when the test ends is killed.
 */
export function uniqueSleep(): { readonly seconds: string; readonly alive: () => number[] } {
  const seconds = `1000.${randomInt(100_000, 999_999)}`;
  const alive = () => sleepers(seconds);
  onTestFinished(() => killAll(alive()));
  return { seconds, alive };
}

/** Live host PIDs whose command line is `sleep SECONDS`. */
function sleepers(seconds: string): number[] {
  const wanted = `sleep\0${seconds}\0`;
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1");
    } catch {
      continue;
    }
    if (cmdline.endsWith(wanted) && isAlive(Number(entry))) found.push(Number(entry));
  }
  return found;
}
