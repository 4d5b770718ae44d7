import type { ToolContext } from "./tool.js";

/**
 * One call's cancellation: by the turn, by the host's own signal, or by the run deadline. The
 * `AbortSignal` a tool sees is created only when the tool asks for it: on Node 20, creating and
 * linking an `AbortSignal` costs more than the rest of a no-op dispatch, and most fast tools never
 * look at it. Whatever is created dies with the call, so listeners a tool leaves behind do not pile
 * up on a signal shared across calls.
 */
export class CallAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #listeners: Array<(reason: unknown) => void> = [];
  #detach: (() => void) | undefined;

  constructor(hostSignal?: AbortSignal) {
    if (hostSignal) this.#detach = onAbortOf(hostSignal)((reason) => this.abort(reason));
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** The call's signal, created on first use and already aborted if the call was. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    for (const listener of this.#listeners.splice(0)) listener(reason);
  }

  /**
   * Runs `listener` once with the reason when the call aborts (at once if it already has);
   * returns a remover.
   */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#aborted) {
      listener(this.#reason);
      return () => undefined;
    }
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  /** Detaches from the host's signal once the call is over. */
  dispose(): void {
    this.#detach?.();
    this.#detach = undefined;
    this.#listeners = [];
  }
}

/**
 * `ToolContext.onAbort` over an AbortSignal, for a host or wrapper that gives a tool a context
 * with a signal of its own (a plugin's time limit joined to the call's): the listener hears that
 * signal, so `signal` and `onAbort` never disagree.
 */
export function onAbortOf(signal: AbortSignal): ToolContext["onAbort"] {
  return (listener) => {
    if (signal.aborted) {
      listener(signal.reason);
      return () => undefined;
    }
    const forward = () => listener(signal.reason);
    signal.addEventListener("abort", forward, { once: true });
    return () => signal.removeEventListener("abort", forward);
  };
}
