import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { endProcesses } from "./end-processes.js";
import { type CapturedText, OutputCapture } from "./output-capture.js";
import { outputTargets, type ProcessControl, type ProcessInfo, type RunIdentity } from "./proc-processes.js";
import { ProgressStream } from "./progress-stream.js";

export interface RunRequest {
  readonly executable: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** `NAME=value` of the run marker, also present in `env`. */
  readonly marker: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal;
  readonly onOutput: (stream: "stdout" | "stderr", text: string) => void;
  readonly control: ProcessControl;
  readonly killGraceMs: number;
  readonly cleanupMs: number;
}

export type RunEnd =
  | { readonly kind: "exited"; readonly exitCode: number | null; readonly signal: string | null }
  | { readonly kind: "timeout" }
  | { readonly kind: "cancelled" }
  | { readonly kind: "spawn-failed"; readonly code: string; readonly message: string };

export interface RunOutcome {
  readonly end: RunEnd;
  readonly stdout: CapturedText;
  readonly stderr: CapturedText;
  /** Processes still alive, or `unknown` holders of the output, when cleanup could not finish. */
  readonly survivors: readonly ProcessInfo[];
  /** Processes other than the leader that had to be signalled after the run. */
  readonly ended: number;
  readonly durationMs: number;
}

/**
 * Runs one process in a new session and process group with stdin closed, capturing and streaming
 * its output, and settles only after the whole run is over: on exit, timeout or cancellation the
 * group and every descendant found by the run marker are ended (SIGTERM, then SIGKILL), the
 * leader is reaped and both output streams are drained, within the cleanup allowance.
 */
export async function runProcess(request: RunRequest): Promise<RunOutcome> {
  const started = performance.now();
  const captures = {
    stdout: new OutputCapture(request.maxOutputBytes),
    stderr: new OutputCapture(request.maxOutputBytes),
  };
  let child: ChildProcess;
  try {
    child = spawn(request.executable, [...request.args], {
      cwd: request.cwd,
      env: request.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
  } catch (error) {
    return spawnFailed(error, captures, started);
  }
  const leader = child.pid;
  if (leader === undefined) {
    const [error] = (await once(child, "error")) as [unknown];
    return spawnFailed(error, captures, started);
  }
  const targets = outputTargets(leader);
  // Errors after a successful spawn (a failed kill) carry nothing the outcome needs.
  child.on("error", () => undefined);
  const run: RunIdentity = { leader, marker: request.marker, startedAt: started };
  const closed = once(child, "close").then(() => true);
  const streams = attachStreams(child, captures, request.onOutput);
  const exited = once(child, "exit").then(([code, signal]) => ({
    kind: "exited" as const,
    exitCode: code as number | null,
    signal: signal as string | null,
  }));

  const end = await untilEnd(exited, request);
  const deadline = performance.now() + request.cleanupMs;
  const control = request.control;
  const group = await endProcesses({
    control,
    find: () => control.find(run),
    group: leader,
    graceMs: request.killGraceMs,
    deadline,
  });
  let survivors: ProcessInfo[] = group.survivors;
  let ended = Math.max(0, group.signalled - (end.kind === "exited" ? 0 : 1));
  if (survivors.length === 0 && !(await settles(closed, Math.min(250, deadline - performance.now())))) {
    // Output is still open: something outside the group that dropped the marker holds it.
    const holders = await endProcesses({
      control,
      find: () => control.holders(run, targets),
      graceMs: Math.min(request.killGraceMs, 500),
      deadline,
    });
    ended += holders.signalled;
    survivors = holders.survivors;
    if (survivors.length === 0 && !(await settles(closed, deadline - performance.now()))) {
      survivors = [{ pid: 0, name: "unknown holder of the output pipe" }];
    }
  }
  if (survivors.length > 0) {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  streams.stdout.end();
  streams.stderr.end();
  return {
    end,
    stdout: captures.stdout.text(),
    stderr: captures.stderr.text(),
    survivors,
    ended,
    durationMs: performance.now() - started,
  };
}

/** setTimeout fires at once for delays past 2^31-1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

type Captures = { stdout: OutputCapture; stderr: OutputCapture };

function attachStreams(
  child: ChildProcess,
  captures: Captures,
  onOutput: RunRequest["onOutput"],
): { stdout: ProgressStream; stderr: ProgressStream } {
  const progress = {
    stdout: new ProgressStream((text) => onOutput("stdout", text)),
    stderr: new ProgressStream((text) => onOutput("stderr", text)),
  };
  for (const name of ["stdout", "stderr"] as const) {
    child[name]?.on("data", (chunk: Buffer) => {
      captures[name].push(chunk);
      progress[name].push(chunk);
    });
  }
  return progress;
}

/** Waits for the leader to exit, the timeout, or cancellation, whichever comes first. */
async function untilEnd(exited: Promise<RunEnd>, request: RunRequest): Promise<RunEnd> {
  if (request.signal.aborted) return { kind: "cancelled" };
  const stop = new AbortController();
  const timeout = delay(Math.min(request.timeoutMs, MAX_TIMER_MS), { kind: "timeout" } as const, {
    signal: stop.signal,
  }).catch(() => undefined);
  const cancelled = once(request.signal, "abort", { signal: stop.signal }).then(
    () => ({ kind: "cancelled" }) as const,
    () => undefined,
  );
  try {
    const first = await Promise.race([exited, timeout, cancelled]);
    return first ?? (await exited);
  } finally {
    stop.abort();
  }
}

async function settles(promise: Promise<boolean>, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.race([promise, Promise.resolve(false)]);
  const stop = new AbortController();
  try {
    return await Promise.race([promise, delay(ms, false, { signal: stop.signal }).catch(() => false)]);
  } finally {
    stop.abort();
  }
}

function spawnFailed(error: unknown, captures: Captures, started: number): RunOutcome {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "EUNKNOWN";
  return {
    end: { kind: "spawn-failed", code, message: error instanceof Error ? error.message : String(error) },
    stdout: captures.stdout.text(),
    stderr: captures.stderr.text(),
    survivors: [],
    ended: 0,
    durationMs: performance.now() - started,
  };
}
