import type { CallAbort } from "./call-abort.js";
import { ErrorCode } from "./errors.js";
import type { Budget } from "./limits.js";
import { fail, type ToolFailure, type ToolResult } from "./tool.js";

/** The reason a turn was cancelled. */
export class CancelledError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CancelledError";
  }
}

/** The reason a call aborts when the run deadline passes. */
export class DeadlineError extends Error {
  constructor() {
    super("the run deadline passed");
    this.name = "DeadlineError";
  }
}

/** setTimeout fires at once for delays past 2^31-1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A session's calls in flight. Cancelling the turn or passing the run deadline aborts each of
 * them; the deadline timer is armed once, when the session opens, and never keeps a process alive.
 */
export class InflightCalls {
  readonly #calls = new Set<CallAbort>();

  constructor(budget: Budget) {
    const delay = Math.min(budget.remainingMs(), MAX_TIMER_MS);
    const timer = setTimeout(() => this.abortAll(new DeadlineError()), delay);
    timer.unref?.();
  }

  add(call: CallAbort): void {
    this.#calls.add(call);
  }

  /** The call is over: forget it and detach it from the host's signal. */
  release(call: CallAbort): void {
    this.#calls.delete(call);
    call.dispose();
  }

  abortAll(reason: Error): void {
    for (const call of [...this.#calls]) call.abort(reason);
  }
}

/** The result of an aborted call; what the tool reported about its own state is kept as details. */
export function cancelledResult(reason: unknown, reported?: ToolResult): ToolFailure {
  const details = reported && !reported.ok ? reported.error.details : undefined;
  if (reason instanceof DeadlineError) {
    return fail(ErrorCode.TOOL_TIMEOUT, "the call passed the run deadline and was stopped", details);
  }
  return fail(ErrorCode.TOOL_CANCELLED, "the call was cancelled", details);
}
