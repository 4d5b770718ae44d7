import { setTimeout as delay } from "node:timers/promises";
import type { ProcessControl, ProcessInfo } from "./proc-processes.js";

export interface EndRequest {
  readonly control: ProcessControl;
  /** The processes still to end; called again after every round. */
  readonly find: () => ProcessInfo[];
  /** A process group signalled as a whole in every round, when the run has one. */
  readonly group?: number;
  /** Time between SIGTERM and SIGKILL. */
  readonly graceMs: number;
  /** performance.now() after which no more waiting is done. */
  readonly deadline: number;
}

export interface EndOutcome {
  /** Distinct processes that were signalled. */
  readonly signalled: number;
  /** Processes still alive when the allowance ran out. */
  readonly survivors: ProcessInfo[];
}

/**
 * Ends a set of processes: SIGTERM to the group and to each process found, a grace period for
 * them to exit, then SIGKILL, repeating the search every round so that processes forked meanwhile
 * are caught too. Stops when the search comes back empty or the deadline passes.
 */
export async function endProcesses(request: EndRequest): Promise<EndOutcome> {
  const { control, find, group } = request;
  const signalled = new Set<number>();
  const termUntil = Math.min(performance.now() + request.graceMs, request.deadline);
  let found = find();
  let pause = 5;
  let groupTermed = false;
  while (found.length > 0) {
    const now = performance.now();
    if (now >= request.deadline) break;
    const signal = now < termUntil ? "SIGTERM" : "SIGKILL";
    if (group !== undefined && (signal === "SIGKILL" || !groupTermed)) control.signal(-group, signal);
    groupTermed = true;
    for (const { pid } of found) {
      // SIGTERM once per process; SIGKILL every round until it is gone.
      if (signal === "SIGKILL" || !signalled.has(pid)) control.signal(pid, signal);
      signalled.add(pid);
    }
    const until = signal === "SIGTERM" ? termUntil : request.deadline;
    await delay(Math.max(1, Math.min(pause, until - performance.now())));
    pause = Math.min(pause * 2, 50);
    found = find();
  }
  return { signalled: signalled.size, survivors: found };
}
