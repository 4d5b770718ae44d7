import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** A live process, named for a cleanup report. */
export interface ProcessInfo {
  readonly pid: number;
  readonly name: string;
}

/** What identifies the processes of one run. */
export interface RunIdentity {
  /** The leader's PID, which is also its process group and session ID (it was started with setsid). */
  readonly leader: number;
  /** `NAME=value` of the run marker exactly as it appears in a descendant's environment. */
  readonly marker: string;
  /** Milliseconds (performance.now) when the leader was started. */
  readonly startedAt: number;
}

/**
 * Finds and signals the processes of a run. The default reads `/proc`; a sandbox or a test may
 * supply another. Contract: must not throw; must never report the host process itself.
 */
export interface ProcessControl {
  /** Live (not zombie) processes in the run's group or session, or carrying its marker. */
  find(run: RunIdentity): ProcessInfo[];
  /** Live processes with a descriptor open on any of the given `/proc/PID/fd` link targets. */
  holders(run: RunIdentity, targets: readonly string[]): ProcessInfo[];
  /** Sends a signal to a PID, or to a process group when `pid` is negative. False when none exists. */
  signal(pid: number, signal: "SIGTERM" | "SIGKILL"): boolean;
}

/**
 * PIDs are handed out cyclically, so every process started after the leader lies in the cyclic
 * range from the leader to the newest PID, unless the whole PID space wrapped during the run. Short
 * runs scan only that range (a few entries for a fast command); longer ones scan everything.
 */
const RANGE_SCAN_MS = 1_000;
const DIRECT_PROBE_LIMIT = 256;

/** The `/proc` implementation of {@link ProcessControl}. */
export function procProcessControl(procRoot = "/proc"): ProcessControl {
  const self = process.pid;
  const candidates = (run: RunIdentity): number[] => {
    const last = performance.now() - run.startedAt < RANGE_SCAN_MS ? lastPid(procRoot) : undefined;
    if (last !== undefined && last >= run.leader && last - run.leader < DIRECT_PROBE_LIMIT) {
      // Few PIDs were handed out since the leader: probe them instead of listing all of /proc.
      const pids: number[] = [];
      for (let pid = run.leader; pid <= last; pid++) if (pid !== self) pids.push(pid);
      return pids;
    }
    const all: number[] = [];
    for (const entry of readdirSync(procRoot)) {
      const pid = Number(entry);
      if (Number.isInteger(pid) && pid > 1 && pid !== self) all.push(pid);
    }
    if (last === undefined) return all;
    return last >= run.leader
      ? all.filter((pid) => pid >= run.leader && pid <= last)
      : all.filter((pid) => pid >= run.leader || pid <= last);
  };
  return {
    find(run) {
      const marker = Buffer.from(run.marker);
      const found: ProcessInfo[] = [];
      for (const pid of safeList(() => candidates(run))) {
        const stat = readStat(procRoot, pid);
        if (!stat || stat.state === "Z" || stat.state === "X") continue;
        const member = stat.pgrp === run.leader || stat.session === run.leader;
        if (member || environHas(procRoot, pid, marker)) found.push({ pid, name: stat.name });
      }
      return found;
    },
    holders(run, targets) {
      const wanted = new Set(targets);
      const found: ProcessInfo[] = [];
      for (const pid of safeList(() => candidates(run))) {
        const stat = readStat(procRoot, pid);
        if (!stat || stat.state === "Z" || stat.state === "X") continue;
        const fds = safeList(() => readdirSync(`${procRoot}/${pid}/fd`));
        if (fds.some((fd) => wanted.has(safeReadlink(`${procRoot}/${pid}/fd/${fd}`)))) {
          found.push({ pid, name: stat.name });
        }
      }
      return found;
    },
    signal(pid, signal) {
      if (pid === self || pid === -self || pid === 0 || pid === 1 || pid === -1) return false;
      try {
        process.kill(pid, signal);
        return true;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === "EPERM";
      }
    },
  };
}

/**
 * What a process's output descriptors are open on (`socket:[N]`, `pipe:[N]`), read while it is
 * still starting up, so that whoever inherits them can be found later. Empty when it already ended.
 */
export function outputTargets(pid: number, procRoot = "/proc"): string[] {
  const targets = [1, 2].map((fd) => safeReadlink(`${procRoot}/${pid}/fd/${fd}`));
  return targets.filter((target) => target.startsWith("socket:[") || target.startsWith("pipe:["));
}

interface Stat {
  readonly name: string;
  readonly state: string;
  readonly pgrp: number;
  readonly session: number;
}

function readStat(procRoot: string, pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`${procRoot}/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The name sits in parentheses and may itself contain spaces and parentheses.
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  const fields = text.slice(close + 2).split(" ");
  return {
    name: text.slice(open + 1, close),
    state: fields[0] ?? "",
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
  };
}

function environHas(procRoot: string, pid: number, marker: Buffer): boolean {
  try {
    return readFileSync(`${procRoot}/${pid}/environ`).includes(marker);
  } catch {
    return false;
  }
}

function lastPid(procRoot: string): number | undefined {
  try {
    const value = Number(readFileSync(`${procRoot}/sys/kernel/ns_last_pid`, "latin1").trim());
    return Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

function safeList<T>(list: () => T[]): T[] {
  try {
    return list();
  } catch {
    return [];
  }
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}
