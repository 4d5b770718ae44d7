import { execFileSync, spawnSync } from "node:child_process";
import { createCatalog, createKernel, type Session } from "@pablo/kernel";
import { createFsTools } from "../src/index.js";

/** Median wall times in milliseconds of `runs` alternating runs of `a` and `b`. */
export async function interleavedMedians(
  runs: number,
  a: () => Promise<unknown> | unknown,
  b: () => Promise<unknown> | unknown,
): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const [side, work] of [a, b].entries()) {
      const started = performance.now();
      await work();
      times[side as 0 | 1].push(performance.now() - started);
    }
  }
  const median = (list: number[]) => list.sort((x, y) => x - y)[Math.floor(list.length / 2)] as number;
  return [median(times[0]), median(times[1])];
}

/** A kernel session over the fs tools of `workspace`: the bench measures the real pipeline. */
export async function fsSession(workspace: string): Promise<Session> {
  const tools = await createFsTools({ workspace });
  return createKernel().openSession({ catalog: createCatalog(tools), permission: { mode: "auto" } });
}

/** Makes sure a command exists, installing its Debian package with apt-get when it does not. */
export function ensureCommand(command: string, debianPackage: string): void {
  if (spawnSync("sh", ["-c", `command -v ${command}`]).status === 0) return;
  console.log(`${command} is missing; installing ${debianPackage} with apt-get`);
  const install = () => execFileSync("apt-get", ["install", "-y", debianPackage], { stdio: "inherit" });
  try {
    install();
  } catch {
    execFileSync("apt-get", ["update"], { stdio: "inherit" });
    install();
  }
}

/** A deterministic pseudo-random generator (mulberry32), so every run builds the same data. */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const MiB = 1024 * 1024;
