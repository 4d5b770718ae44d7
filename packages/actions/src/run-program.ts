import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import {
  type Containment,
  cleanEnvironment,
  endProcesses,
  localContainment,
  type ProcessControl,
  procProcessControl,
  RUN_MARKER_VARIABLE,
} from "@pablo/shell";

/*
 * The action's runner, over what @pablo/shell exports: its containment (a PID namespace where the
 * host allows one, so no descendant outlives the run; descriptors beyond 0-2 closed), the clean
 * environment, the run marker, `/proc` process control and `endProcesses`. One process in its own
 * session and group, stdin closed, no TTY, and on exit, timeout or cancellation every process of
 * the group or carrying the marker ended (SIGTERM, then SIGKILL) before the run settles. (The
 * shell's own runner captures head and tail; an action needs raw chunks for redaction, so it is
 * not reused.)
 */

export interface ProgramRun {
  readonly argv: readonly string[];
  readonly cwd: string;
  /** Raw stdout bytes kept for redaction and filtering; the rest are counted and dropped. */
  readonly maxScanBytes: number;
  /** Raw stderr bytes kept. */
  readonly maxStderrBytes: number;
  /** performance.now() after which the run is timed out. */
  readonly deadline: number;
  readonly signal: AbortSignal;
  readonly control?: ProcessControl;
  /** How the program is contained; the shell's local containment by default. */
  readonly containment?: Containment;
}

export type ProgramEnd =
  | { readonly kind: "exited"; readonly exitCode: number | null; readonly signal: string | null }
  | { readonly kind: "timeout" }
  | { readonly kind: "cancelled" }
  | { readonly kind: "spawn-failed"; readonly code: string; readonly message: string };

export interface ProgramOutcome {
  readonly end: ProgramEnd;
  /** At most `maxScanBytes` of raw stdout. Callers redact it at once and keep nothing else. */
  readonly stdout: Buffer;
  readonly stdoutBytes: number;
  readonly stderr: Buffer;
  readonly stderrBytes: number;
  /** Processes that could not be ended within the cleanup allowance. */
  readonly survivors: number;
  /** The containment in force, for the audit record. */
  readonly containment: string;
}

let defaultContainment: Containment | undefined;

/** The local containment, probed once per process. */
function sharedContainment(): Containment {
  if (!defaultContainment) defaultContainment = localContainment({ privateProc: false });
  return defaultContainment;
}

const KILL_GRACE_MS = 500;
const CLEANUP_MS = 3_000;

/** Runs one argument array without a shell and settles only when all its processes are gone. */
export async function runProgram(run: ProgramRun): Promise<ProgramOutcome> {
  const control = run.control ?? procProcessControl();
  const markerValue = randomUUID();
  const env = cleanEnvironment({ marker: markerValue });
  const stdout = new Bounded(run.maxScanBytes);
  const stderr = new Bounded(run.maxStderrBytes);
  const [program, ...programArgs] = run.argv;
  // The host's /proc stays mounted, so a program that reads /proc/self sees its host PID.
  const containment = run.containment ?? sharedContainment();
  const launch = containment.wrap(
    { executable: program ?? "", args: programArgs },
    { cwd: run.cwd, workspaceWritable: true },
  );
  const startedAt = performance.now();
  const child = spawn(launch.executable, [...launch.args], {
    cwd: run.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    // argv[0] as given, never a shell.
    shell: false,
  });
  const spawned = await Promise.race([
    once(child, "spawn").then(() => undefined),
    once(child, "error").then(([error]) => error as NodeJS.ErrnoException),
  ]);
  if (spawned !== undefined || child.pid === undefined) {
    const error = spawned ?? new Error("spawn failed");
    const code = (error as NodeJS.ErrnoException).code ?? "EUNKNOWN";
    return {
      end: { kind: "spawn-failed", code, message: error.message },
      ...outputs(stdout, stderr),
      survivors: 0,
      containment: containment.kind,
    };
  }
  child.on("error", () => undefined);
  child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
  const leader = child.pid;
  const exited = once(child, "exit").then(([code, signal]) => ({
    kind: "exited" as const,
    exitCode: code as number | null,
    signal: signal as string | null,
  }));
  const closed = once(child, "close");
  const end = await untilEnd(exited, run);
  const identity = { leader, marker: `${RUN_MARKER_VARIABLE}=${markerValue}`, startedAt };
  // Whatever the leader left behind (a background child holding stdout) is ended too, and only
  // then is the output drained: a run never waits on a descendant, and none outlives it.
  const survivors = await endAll(control, identity);
  const drained = await Promise.race([closed.then(() => true), delay(CLEANUP_MS, false)]);
  if (!drained) {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  return {
    end,
    ...outputs(stdout, stderr),
    survivors: drained ? survivors : Math.max(survivors, 1),
    containment: containment.kind,
  };
}

function outputs(stdout: Bounded, stderr: Bounded) {
  return {
    stdout: stdout.bytes(),
    stdoutBytes: stdout.total,
    stderr: stderr.bytes(),
    stderrBytes: stderr.total,
  };
}

async function untilEnd(exited: Promise<ProgramEnd>, run: ProgramRun): Promise<ProgramEnd> {
  if (run.signal.aborted) return { kind: "cancelled" };
  const stop = new AbortController();
  const timeout = delay(Math.max(1, run.deadline - performance.now()), { kind: "timeout" } as const, {
    signal: stop.signal,
  }).catch(() => undefined);
  const cancelled = once(run.signal, "abort", { signal: stop.signal }).then(
    () => ({ kind: "cancelled" }) as const,
    () => undefined,
  );
  try {
    return (await Promise.race([exited, timeout, cancelled])) ?? (await exited);
  } finally {
    stop.abort();
  }
}

/** Ends the group and every marked descendant with the shell package's SIGTERM-then-SIGKILL rounds. */
async function endAll(
  control: ProcessControl,
  run: { leader: number; marker: string; startedAt: number },
): Promise<number> {
  const ended = await endProcesses({
    control,
    find: () => control.find(run),
    group: run.leader,
    graceMs: KILL_GRACE_MS,
    deadline: performance.now() + CLEANUP_MS,
  });
  return ended.survivors.length;
}

/** Keeps the first `limit` bytes of a stream and counts the rest. */
class Bounded {
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  total = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.#limit - this.#kept;
    if (room <= 0) return;
    const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.#chunks.push(Buffer.from(piece));
    this.#kept += piece.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}
