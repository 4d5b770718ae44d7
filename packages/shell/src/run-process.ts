import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { endProcesses } from "./end-processes.js";
import type { Launcher } from "./launcher.js";
import { type CapturedText, OutputCapture } from "./output-capture.js";
import { openOutputChannel } from "./output-channel.js";
import {
  newestPid,
  nowTicks,
  outputTargets,
  type ProcessControl,
  type ProcessInfo,
  type RunIdentity,
  runNamespace,
  startTicks,
} from "./proc-processes.js";
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
  /**
   * Whether the launcher starts the command in a PID namespace of its own (see `Containment`).
   * Then the namespace finds every descendant; otherwise orphans started during the run that
   * re-parented to init cannot be proven unrelated and are reported as survivors.
   */
  readonly namespaced?: boolean;
  /**
   * The host's launcher, which forks and execs the leader instead of this process (see
   * `Launcher`). The command must then not rely on descriptors this process inherited being
   * closed by `executable`: the launcher closed its own at its start.
   */
  readonly launcher?: Launcher;
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
  const output = runOutput(request);
  const leader = request.launcher
    ? await launchedLeader(request, request.launcher, output)
    : await spawnedLeader(request, output);
  if (!leader.ok) return spawnFailed(leader, output, started);
  const { pid: leaderPid, targets, exited } = leader;
  const leaderTicks = request.namespaced ? undefined : leader.startTicks;
  const drained = Promise.all([exited, leader.closed]).then(() => true);

  const end = await untilEnd(exited, request);
  const endTicks = request.namespaced ? undefined : nowTicks();
  const endPid = request.namespaced ? undefined : newestPid();
  // A leader that exited on its own waited for its namespace to empty; one still running is
  // ended with everything in its namespace.
  const namespace = request.namespaced && end.kind !== "exited" ? runNamespace(leaderPid) : undefined;
  const run: RunIdentity = {
    leader: leaderPid,
    marker: request.marker,
    startedAt: started,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(leaderTicks !== undefined ? { startTicks: leaderTicks } : {}),
    ...(endTicks !== undefined ? { endTicks } : {}),
    ...(endPid !== undefined ? { endPid } : {}),
  };
  const cleanup = await endRun(request, run, targets, drained, end.kind !== "exited");
  if (cleanup.survivors.length > 0) leader.destroy();
  output.stdout.progress.end();
  output.stderr.progress.end();
  return {
    end,
    stdout: output.stdout.capture.text(),
    stderr: output.stderr.capture.text(),
    survivors: cleanup.survivors,
    ended: cleanup.ended,
    durationMs: performance.now() - started,
  };
}

type Exited = Extract<RunEnd, { kind: "exited" }>;

/** A started leader, whichever way it was started. */
type Leader =
  | {
      readonly ok: true;
      readonly pid: number;
      /** Its start time, read before it could be reaped; undefined when it could not be read. */
      readonly startTicks: number | undefined;
      /** What its output descriptors are open on, for finding whoever inherited them. */
      readonly targets: readonly string[];
      readonly exited: Promise<Exited>;
      /** Resolves once both output streams are closed by every holder and delivered. */
      readonly closed: Promise<unknown>;
      /** Stops reading the output. */
      destroy(): void;
    }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** Spawns the leader from this process, with each output stream one end of a socket pair. */
async function spawnedLeader(request: RunRequest, output: RunOutput): Promise<Leader> {
  const [stdout, stderr] = await Promise.all([
    openOutputChannel(output.stdout.push),
    openOutputChannel(output.stderr.push),
  ]);
  const destroy = () => {
    stdout.destroy();
    stderr.destroy();
  };
  let child: ChildProcess;
  try {
    child = spawn(request.executable, [...request.args], {
      cwd: request.cwd,
      env: request.env,
      stdio: ["ignore", stdout.stdio, stderr.stdio],
      detached: true,
    });
  } catch (error) {
    destroy();
    return spawnError(error);
  }
  const leader = child.pid;
  if (leader === undefined) {
    const [error] = (await once(child, "error")) as [unknown];
    destroy();
    return spawnError(error);
  }
  // The start and end ticks and the newest PID bound the search for strays, which only a run
  // without a namespace makes: in one, the kernel ends every descendant with the namespace.
  const leaderTicks = request.namespaced ? undefined : startTicks(leader);
  stdout.attach(child.stdout);
  stderr.attach(child.stderr);
  // From this process's ends, since a fast shell may be gone before its own can be read; the
  // leader's are read too in case a channel's could not be.
  const targets = [...new Set([stdout.target(), stderr.target(), ...outputTargets(leader)])].filter(
    (target) => target !== "",
  );
  // Errors after a successful spawn (a failed kill) carry nothing the outcome needs.
  child.on("error", () => undefined);
  const exited = once(child, "exit").then(([code, signal]) => ({
    kind: "exited" as const,
    exitCode: code as number | null,
    signal: signal as string | null,
  }));
  return {
    ok: true,
    pid: leader,
    startTicks: leaderTicks,
    targets,
    exited,
    closed: Promise.all([stdout.closed, stderr.closed]),
    destroy,
  };
}

/** Has the host's launcher fork and exec the leader; its output streams connect to the launcher. */
async function launchedLeader(request: RunRequest, launcher: Launcher, output: RunOutput): Promise<Leader> {
  const launched = await launcher.launch(
    { executable: request.executable, args: request.args, cwd: request.cwd, env: request.env },
    output.stdout.push,
    output.stderr.push,
  );
  if (!launched.ok) return launched;
  const { leader } = launched;
  return {
    ok: true,
    pid: leader.pid,
    startTicks: leader.startTicks,
    targets: [leader.stdout.target(), leader.stderr.target()].filter((target) => target !== ""),
    exited: leader.exited.then((exit) => ({ kind: "exited" as const, ...exit })),
    closed: Promise.all([leader.stdout.closed, leader.stderr.closed]),
    destroy: () => {
      leader.stdout.destroy();
      leader.stderr.destroy();
    },
  };
}

function spawnError(error: unknown): Leader {
  return {
    ok: false,
    code: (error as NodeJS.ErrnoException | undefined)?.code ?? "EUNKNOWN",
    message: error instanceof Error ? error.message : String(error),
  };
}

/**
 * Ends the run's processes, then waits for its output to drain. Output still open after the
 * processes are gone means a holder outside the group that dropped the marker: holders of the
 * output descriptors are ended too, and an output that never closes is reported as a survivor.
 */
async function endRun(
  request: RunRequest,
  run: RunIdentity,
  targets: readonly string[],
  drained: Promise<boolean>,
  leaderRunning: boolean,
): Promise<{ survivors: ProcessInfo[]; ended: number }> {
  const { control } = request;
  const deadline = performance.now() + request.cleanupMs;
  const namespaceInit = control.namespaceInit?.(run);
  const group = await endProcesses({
    control,
    find: () => control.find(run),
    group: run.leader,
    ...(namespaceInit !== undefined ? { namespaceInit } : {}),
    graceMs: request.killGraceMs,
    deadline,
  });
  const ended = Math.max(0, group.signalled - (leaderRunning ? 1 : 0));
  if (group.survivors.length > 0) return { survivors: group.survivors, ended };
  if (await settles(drained, Math.min(250, deadline - performance.now())))
    return { survivors: strays(request, run), ended };
  const holders = await endProcesses({
    control,
    find: () => control.holders(run, targets),
    graceMs: Math.min(request.killGraceMs, 500),
    deadline,
  });
  const total = ended + holders.signalled;
  if (holders.survivors.length > 0) return { survivors: holders.survivors, ended: total };
  if (await settles(drained, deadline - performance.now()))
    return { survivors: strays(request, run), ended: total };
  return { survivors: [{ pid: 0, name: "unknown holder of the output" }], ended: total };
}

/** Without a namespace, orphans started during the run are not proven gone: they are reported. */
function strays(request: RunRequest, run: RunIdentity): ProcessInfo[] {
  if (request.namespaced || !request.control.strays) return [];
  return request.control
    .strays(run)
    .map((p) => ({ pid: p.pid, name: `${p.name} (re-parented to init during the run)` }));
}

interface StreamOutput {
  readonly capture: OutputCapture;
  readonly progress: ProgressStream;
  /** Takes a chunk of the stream; a view valid only during the call. */
  readonly push: (chunk: Buffer) => void;
}

interface RunOutput {
  readonly stdout: StreamOutput;
  readonly stderr: StreamOutput;
}

function runOutput(request: RunRequest): RunOutput {
  const stream = (name: "stdout" | "stderr"): StreamOutput => {
    const capture = new OutputCapture(request.maxOutputBytes);
    const progress = new ProgressStream((text) => request.onOutput(name, text));
    return {
      capture,
      progress,
      push: (chunk) => {
        capture.push(chunk);
        progress.push(chunk);
      },
    };
  };
  return { stdout: stream("stdout"), stderr: stream("stderr") };
}

/** setTimeout fires at once for delays past 2^31-1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Waits for the leader to exit, the timeout, or cancellation, whichever comes first. Plain timers
 * and listeners, not aborted promise helpers: each abort made a DOMException and an AbortError
 * with stack traces on every run, about 0.1 ms of a 3 ms `true`.
 */
function untilEnd(exited: Promise<RunEnd>, request: RunRequest): Promise<RunEnd> {
  const { signal } = request;
  if (signal.aborted) return Promise.resolve({ kind: "cancelled" });
  return new Promise<RunEnd>((resolve, reject) => {
    const finish = (end: RunEnd) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(end);
    };
    const onAbort = () => finish({ kind: "cancelled" });
    const timer = setTimeout(() => finish({ kind: "timeout" }), Math.min(request.timeoutMs, MAX_TIMER_MS));
    signal.addEventListener("abort", onAbort, { once: true });
    exited.then(finish, (error: unknown) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
  });
}

/** Whether `promise` resolves true within `ms`; false at the deadline. */
function settles(promise: Promise<boolean>, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.race([promise, Promise.resolve(false)]);
  return new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function spawnFailed(
  failure: { readonly code: string; readonly message: string },
  output: RunOutput,
  started: number,
): RunOutcome {
  return {
    end: { kind: "spawn-failed", code: failure.code, message: failure.message },
    stdout: output.stdout.capture.text(),
    stderr: output.stderr.capture.text(),
    survivors: [],
    ended: 0,
    durationMs: performance.now() - started,
  };
}
