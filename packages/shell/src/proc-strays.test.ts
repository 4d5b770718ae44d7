import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { procProcessControl, type RunIdentity } from "./proc-processes.js";

// A /proc laid out in a temporary directory: the real one cannot be made to hold an orphan
// started a given PID after a run, and that ordering is what is tested.
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function fakeProc(lastPid: number, processes: Array<{ pid: number; ppid: number; ticks: number }>): string {
  const root = mkdtempSync(join(tmpdir(), "pablo-fake-proc-"));
  roots.push(root);
  mkdirSync(join(root, "sys/kernel"), { recursive: true });
  writeFileSync(join(root, "sys/kernel/ns_last_pid"), `${lastPid}\n`);
  mkdirSync(join(root, "self/ns"), { recursive: true });
  symlinkSync("pid:[4026531836]", join(root, "self/ns/pid"));
  for (const { pid, ppid, ticks } of processes) {
    mkdirSync(join(root, `${pid}/ns`), { recursive: true });
    symlinkSync("pid:[4026531836]", join(root, `${pid}/ns/pid`));
    // state ppid pgrp session, then 15 fields, then the start time (field 22 of the line).
    const rest = ["S", ppid, pid, pid, ...Array(15).fill(0), ticks, 0];
    writeFileSync(join(root, `${pid}/stat`), `${pid} (sleep) ${rest.join(" ")}\n`);
  }
  return root;
}

function strayPids(root: string, run: RunIdentity): number[] | undefined {
  return procProcessControl(root)
    .strays?.(run)
    .map((p) => p.pid);
}

describe("strays of a run without a namespace", () => {
  it("are the orphans whose PID was handed out by the time the leader ended, not later ones", () => {
    const root = fakeProc(120, [
      { pid: 105, ppid: 1, ticks: 500 },
      { pid: 110, ppid: 1, ticks: 500 },
      { pid: 115, ppid: 1, ticks: 500 },
    ]);
    const run = { leader: 100, startedAt: performance.now(), startTicks: 500, endTicks: 501, endPid: 110 };
    expect(strayPids(root, run)).toEqual([105, 110]);
  });

  it("follow the PID range across a wrap of the PID space", () => {
    const root = fakeProc(5, [
      { pid: 3, ppid: 1, ticks: 500 },
      { pid: 5, ppid: 1, ticks: 500 },
    ]);
    const run = { leader: 32_760, startedAt: performance.now(), startTicks: 500, endTicks: 501, endPid: 3 };
    expect(strayPids(root, run)).toEqual([3]);
  });

  it("without an end PID, are every orphan started by the end tick", () => {
    const root = fakeProc(120, [
      { pid: 105, ppid: 1, ticks: 500 },
      { pid: 115, ppid: 1, ticks: 501 },
      { pid: 118, ppid: 1, ticks: 502 },
    ]);
    const run = { leader: 100, startedAt: performance.now(), startTicks: 500, endTicks: 501 };
    expect(strayPids(root, run)).toEqual([105, 115]);
  });
});
