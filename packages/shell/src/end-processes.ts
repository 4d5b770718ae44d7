import { setTimeout as delay } from "node:timers/promises";
import type { NamespaceInit, ProcessControl, ProcessInfo } from "./proc-processes.js";

export interface EndRequest {
  readonly control: ProcessControl;
  /** The processes still to end; called again after every round. */
  readonly find: () => ProcessInfo[];
  /** A process group signalled as a whole in every round, when the run has one. */
  readonly group?: number;
  /**
   * The first process of the run's PID namespace, when the run has one. One without a SIGTERM
   * handler never sees the SIGTERM (the kernel drops it), so it is stopped instead: an init shell
   * would otherwise run the next step of its line while its children end. It is killed, ending the
   * namespace, once it and the leader waiting on it are all that is left.
   */
  readonly namespaceInit?: NamespaceInit;
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
 * are caught too. Stops when the search comes back empty or the deadline passes. A namespace init
 * that would ignore the SIGTERM is stopped first (see `namespaceInit`).
 */
export async function endProcesses(request: EndRequest): Promise<EndOutcome> {
  const { control, find, group } = request;
  const signalled = new Set<number>();
  const termUntil = Math.min(performance.now() + request.graceMs, request.deadline);
  let found = find();
  let pause = 5;
  let groupTermed = false;
  const init = request.namespaceInit;
  const held = init && !init.handlesTerm && control.signal(init.pid, "SIGSTOP") ? init.pid : undefined;
  if (held !== undefined) signalled.add(held);
  // Only the held init and the leader waiting on it: no process is left to end gracefully.
  const onlyHeld = (processes: ProcessInfo[]) =>
    held !== undefined && processes.every(({ pid }) => pid === held || pid === group);
  while (found.length > 0) {
    const now = performance.now();
    if (now >= request.deadline) break;
    const signal = now < termUntil && !onlyHeld(found) ? "SIGTERM" : "SIGKILL";
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
