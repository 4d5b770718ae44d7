import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { hasEnvironEntry, procProcessControl } from "./proc-processes.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

function sleeper(env: Record<string, string>): number {
  const child = spawn("/bin/sleep", ["30"], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: "ignore" });
  children.push(child);
  return child.pid as number;
}

describe("a run's marker in a process's environment", () => {
  it("finds the process that carries it as a whole entry, and none whose environment merely contains its text", async () => {
    const value = randomUUID();
    const marker = `PABLO_SHELL_RUN=${value}`;
    const carrier = sleeper({ PABLO_SHELL_RUN: value });
    const decoys = [
      sleeper({ XPABLO_SHELL_RUN: value }),
      sleeper({ PABLO_SHELL_RUN: `${value}0` }),
      sleeper({ QUOTED: marker }),
    ];
    // The children have exec'd sleep (their environ is the one given) once /proc shows it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const found = procProcessControl()
      .find({ leader: carrier, marker, startedAt: performance.now() })
      .map((p) => p.pid);
    expect(found).toContain(carrier);
    for (const decoy of decoys) expect(found).not.toContain(decoy);
  });

  it("matches whole NUL-separated entries only, first, middle or last", () => {
    const entry = Buffer.from("PABLO_SHELL_RUN=abc");
    const block = (...entries: string[]) => Buffer.from(`${entries.join("\0")}\0`);
    expect(hasEnvironEntry(block("PABLO_SHELL_RUN=abc", "A=1"), entry)).toBe(true);
    expect(hasEnvironEntry(block("A=1", "PABLO_SHELL_RUN=abc", "B=2"), entry)).toBe(true);
    expect(hasEnvironEntry(Buffer.from("A=1\0PABLO_SHELL_RUN=abc"), entry)).toBe(true);
    expect(hasEnvironEntry(block("XPABLO_SHELL_RUN=abc"), entry)).toBe(false);
    expect(hasEnvironEntry(block("PABLO_SHELL_RUN=abcd"), entry)).toBe(false);
    expect(hasEnvironEntry(block("Q=PABLO_SHELL_RUN=abc"), entry)).toBe(false);
    // A decoy before the real entry does not hide it.
    expect(hasEnvironEntry(block("XPABLO_SHELL_RUN=abc", "PABLO_SHELL_RUN=abc"), entry)).toBe(true);
  });
});
