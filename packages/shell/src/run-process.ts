import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { endProcesses } from "./end-processes.js";
import { type CapturedText, OutputCapture } from "./output-capture.js";
import { type OutputChannel, openOutputChannel } from "./output-channel.js";
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
  const output = await openOutput(request);
  let child: ChildProcess;
  try {
    child = spawn(request.executable, [...request.args], {
      cwd: request.cwd,
      env: request.env,
      stdio: ["ignore", output.stdout.channel.stdio, output.stderr.channel.stdio],
      detached: true,
    });
  } catch (error) {
    output.destroy();
    return spawnFailed(error, output, started);
  }
  const leader = child.pid;
  if (leader === undefined) {
    const [error] = (await once(child, "error")) as [unknown];
    output.destroy();
    return spawnFailed(error, output, started);
  }
  // The start and end ticks and the newest PID bound the search for strays, which only a run
  // without a namespace makes: in one, the kernel ends every descendant with the namespace.
  const leaderTicks = request.namespaced ? undefined : startTicks(leader);
  output.stdout.channel.attach(child.stdout);
  output.stderr.channel.attach(child.stderr);
  // From this process's ends, since a fast shell may be gone before its own can be read; the
  // leader's are read too in case a channel's could not be.
  const targets = [
    ...new Set([output.stdout.channel.target(), output.stderr.channel.target(), ...outputTargets(leader)]),
  ].filter((target) => target !== "");
  // Errors after a successful spawn (a failed kill) carry nothing the outcome needs.
  child.on("error", () => undefined);
  const exited = once(child, "exit").then(([code, signal]) => ({
    kind: "exited" as const,
    exitCode: code as number | null,
    signal: signal as string | null,
  }));
  const drained = Promise.all([exited, output.stdout.channel.closed, output.stderr.channel.closed]).then(
    () => true,
  );

  const end = await untilEnd(exited, request);
  const endTicks = request.namespaced ? undefined : nowTicks();
  const endPid = request.namespaced ? undefined : newestPid();
  // A leader that exited on its own waited for its namespace to empty; one still running is
  // ended with everything in its namespace.
  const namespace = request.namespaced && end.kind !== "exited" ? runNamespace(leader) : undefined;
  const run: RunIdentity = {
    leader,
    marker: request.marker,
    startedAt: started,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(leaderTicks !== undefined ? { startTicks: leaderTicks } : {}),
    ...(endTicks !== undefined ? { endTicks } : {}),
    ...(endPid !== undefined ? { endPid } : {}),
  };
  const cleanup = await endRun(request, run, targets, drained, end.kind !== "exited");
  if (cleanup.survivors.length > 0) output.destroy();
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
  const group = await endProcesses({
    control,
    find: () => control.find(run),
    group: run.leader,
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
  readonly channel: OutputChannel;
}

interface RunOutput {
  readonly stdout: StreamOutput;
  readonly stderr: StreamOutput;
  destroy(): void;
}

async function openOutput(request: RunRequest): Promise<RunOutput> {
  const open = async (name: "stdout" | "stderr"): Promise<StreamOutput> => {
    const capture = new OutputCapture(request.maxOutputBytes);
    const progress = new ProgressStream((text) => request.onOutput(name, text));
    const channel = await openOutputChannel((chunk) => {
      capture.push(chunk);
      progress.push(chunk);
    });
    return { capture, progress, channel };
  };
  const [stdout, stderr] = await Promise.all([open("stdout"), open("stderr")]);
  return {
    stdout,
    stderr,
    destroy: () => {
      stdout.channel.destroy();
      stderr.channel.destroy();
    },
  };
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

function spawnFailed(error: unknown, output: RunOutput, started: number): RunOutcome {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "EUNKNOWN";
  return {
    end: { kind: "spawn-failed", code, message: error instanceof Error ? error.message : String(error) },
    stdout: output.stdout.capture.text(),
    stderr: output.stderr.capture.text(),
    survivors: [],
    ended: 0,
    durationMs: performance.now() - started,
  };
}
