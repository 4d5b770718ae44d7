import { readdirSync, readlinkSync } from "node:fs";
import { readProcBytes, readProcText } from "./proc-read.js";

/** A live process, named for a cleanup report. */
export interface ProcessInfo {
  readonly pid: number;
  readonly name: string;
}

/** What identifies the processes of one run. */
export interface RunIdentity {
  /** The leader's PID, which is also its process group and session ID (it was started with setsid). */
  readonly leader: number;
  /** `NAME=value` of the run marker exactly as it appears in a descendant's environment; none for MCP servers. */
  readonly marker?: string;
  /** Milliseconds (performance.now) when the leader was started. */
  readonly startedAt: number;
  /** `pid:[N]` of the run's own PID namespace: every process in it belongs to the run. */
  readonly namespace?: string;
  /** The leader's start time in clock ticks since boot (`/proc/PID/stat` field 22). */
  readonly startTicks?: number;
  /** Clock ticks since boot when the leader ended (or was ended): nothing started later is the run's. */
  readonly endTicks?: number;
  /**
   * The newest PID handed out when the leader ended (or was ended). It bounds the strays the way
   * `endTicks` does, but exactly: a process started in the same clock tick after the run ended is
   * some other program's.
   */
  readonly endPid?: number;
}

/**
 * Finds and signals the processes of a run. The default reads `/proc`; a sandbox or a test may
 * supply another. Contract: must not throw; must never report the host process itself.
 */
export interface ProcessControl {
  /** Live (not zombie) processes in the run's group, session or PID namespace, or carrying its marker. */
  find(run: RunIdentity): ProcessInfo[];
  /**
   * Live processes started since the leader and re-parented to init. Without a namespace these may
   * be the run's escaped descendants, and nothing can prove they are not (another program's daemon
   * started meanwhile is reported too). Optional; absent means none can be found.
   */
  strays?(run: RunIdentity): ProcessInfo[];
  /** Live processes with a descriptor open on any of the given `/proc/PID/fd` link targets. */
  holders(run: RunIdentity, targets: readonly string[]): ProcessInfo[];
  /**
   * The first process of the run's PID namespace (`run.namespace`), and whether it handles
   * SIGTERM. The kernel drops a signal sent from outside to a namespace's init unless it has a
   * handler, so an init shell would go on to the next step of its command line. Optional.
   */
  namespaceInit?(run: RunIdentity): NamespaceInit | undefined;
  /** Sends a signal to a PID, or to a process group when `pid` is negative. False when none exists. */
  signal(pid: number, signal: EndSignal): boolean;
}

export type EndSignal = "SIGTERM" | "SIGKILL" | "SIGSTOP";

export interface NamespaceInit {
  readonly pid: number;
  /** Whether a SIGTERM from outside reaches it (it has a handler installed). */
  readonly handlesTerm: boolean;
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
      const marker = run.marker === undefined ? undefined : Buffer.from(run.marker);
      const found: ProcessInfo[] = [];
      for (const pid of safeList(() => candidates(run))) {
        const stat = readStat(procRoot, pid);
        if (!stat || stat.state === "Z" || stat.state === "X") continue;
        const member =
          stat.pgrp === run.leader ||
          stat.session === run.leader ||
          (run.namespace !== undefined && safeReadlink(`${procRoot}/${pid}/ns/pid`) === run.namespace) ||
          (marker !== undefined && environHas(procRoot, pid, marker));
        if (member) found.push({ pid, name: stat.name });
      }
      return found;
    },
    strays(run) {
      if (run.startTicks === undefined) return [];
      const hostNamespace = safeReadlink(`${procRoot}/self/ns/pid`);
      const found: ProcessInfo[] = [];
      const { leader, endPid } = run;
      // PIDs are handed out cyclically: the run's lie from the leader to endPid, perhaps across a wrap.
      const handedOutByEnd = (pid: number) =>
        endPid === undefined ||
        (endPid >= leader ? pid >= leader && pid <= endPid : pid >= leader || pid <= endPid);
      for (const pid of safeList(() => candidates(run))) {
        if (!handedOutByEnd(pid)) continue;
        const stat = readStat(procRoot, pid);
        if (!stat || stat.state === "Z" || stat.state === "X" || stat.startTicks < run.startTicks) continue;
        if (run.endTicks !== undefined && stat.startTicks > run.endTicks) continue;
        // Re-parented to init: a descendant that double-forked away, or some other program's daemon.
        // One in another PID namespace is not: it is being ended with its namespace (another
        // contained run), and reaped by the host's init meanwhile.
        if (stat.ppid === 1 && safeReadlink(`${procRoot}/${pid}/ns/pid`) === hostNamespace) {
          found.push({ pid, name: stat.name });
        }
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
    namespaceInit(run) {
      if (run.namespace === undefined) return undefined;
      for (const child of childrenOf(procRoot, run.leader)) {
        if (safeReadlink(`${procRoot}/${child}/ns/pid`) !== run.namespace) continue;
        const caught = statusField(procRoot, child, "SigCgt");
        if (caught === undefined) return undefined;
        return { pid: Number(child), handlesTerm: hasSignalBit(caught, SIGTERM_NUMBER) };
      }
      return undefined;
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

/**
 * What identifies a contained run's namespace: the PID namespace the leader's children are born
 * into (unshare makes it before forking) or, for a launcher that clones into it (bubblewrap), that
 * of its first child. Undefined when the leader is gone or shares the host's namespace.
 */
export function runNamespace(leader: number, procRoot = "/proc"): string | undefined {
  const host = safeReadlink(`${procRoot}/self/ns/pid`);
  const forChildren = safeReadlink(`${procRoot}/${leader}/ns/pid_for_children`);
  if (forChildren !== "" && forChildren !== host) return forChildren;
  for (const child of childrenOf(procRoot, leader)) {
    const ns = safeReadlink(`${procRoot}/${child}/ns/pid`);
    if (ns !== "" && ns !== host) return ns;
  }
  return undefined;
}

/** Clock ticks since boot now, in the unit of `/proc/PID/stat` (USER_HZ, 100 on Linux). */
export function nowTicks(procRoot = "/proc"): number | undefined {
  try {
    const seconds = Number(readProcText(`${procRoot}/uptime`).split(" ")[0]);
    return Number.isFinite(seconds) ? Math.ceil(seconds * 100) : undefined;
  } catch {
    return undefined;
  }
}

/** A process's start time in clock ticks since boot, or undefined when it is gone. */
export function startTicks(pid: number, procRoot = "/proc"): number | undefined {
  return readStat(procRoot, pid)?.startTicks;
}

const SIGTERM_NUMBER = 15;

function childrenOf(procRoot: string, pid: number): string[] {
  try {
    return readProcText(`${procRoot}/${pid}/task/${pid}/children`).trim().split(" ").filter(Boolean);
  } catch {
    return [];
  }
}

/** A field of `/proc/PID/status` (`SigCgt: 0000000000004002`), or undefined when it is gone. */
function statusField(procRoot: string, pid: string, name: string): string | undefined {
  try {
    const line = readProcText(`${procRoot}/${pid}/status`)
      .split("\n")
      .find((entry) => entry.startsWith(`${name}:`));
    return line?.slice(name.length + 1).trim();
  } catch {
    return undefined;
  }
}

/** Whether signal `number` is set in a `/proc` signal mask (hex, bit 0 is signal 1). */
function hasSignalBit(mask: string, number: number): boolean {
  try {
    return ((BigInt(`0x${mask}`) >> BigInt(number - 1)) & 1n) === 1n;
  } catch {
    return false;
  }
}

interface Stat {
  readonly name: string;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  readonly startTicks: number;
}

function readStat(procRoot: string, pid: number): Stat | undefined {
  let text: string;
  try {
    text = readProcText(`${procRoot}/${pid}/stat`);
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
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    // Field 22 of the whole line; the fields here start at field 3.
    startTicks: Number(fields[19]),
  };
}

function environHas(procRoot: string, pid: number, marker: Buffer): boolean {
  try {
    return hasEnvironEntry(readProcBytes(`${procRoot}/${pid}/environ`), marker);
  } catch {
    return false;
  }
}

/**
 * Whether a NUL-separated environment block holds `entry` as a whole entry. Text that merely
 * contains it (`XPABLO_SHELL_RUN=...`, a value that quotes it, a longer value) is some other
 * process's: signalling it would end a program that is not the run's.
 */
export function hasEnvironEntry(environ: Buffer, entry: Buffer): boolean {
  for (let at = environ.indexOf(entry); at !== -1; at = environ.indexOf(entry, at + 1)) {
    const end = at + entry.length;
    if ((at === 0 || environ[at - 1] === 0) && (end === environ.length || environ[end] === 0)) return true;
  }
  return false;
}

/** The newest PID handed out in this PID namespace, or undefined when /proc does not say. */
export function newestPid(procRoot = "/proc"): number | undefined {
  return lastPid(procRoot);
}

function lastPid(procRoot: string): number | undefined {
  try {
    const value = Number(readProcText(`${procRoot}/sys/kernel/ns_last_pid`).trim());
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
