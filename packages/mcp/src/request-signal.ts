import type { ToolContext } from "@pablo/kernel";

/** How a call hears of its abort: `ToolContext.onAbort`, or the kernel's `onAbortOf` over a signal. */
export type AbortSubscription = ToolContext["onAbort"];

/**
 * The signal one `tools/call` gives the SDK, fed by the call's abort subscription instead of an
 * AbortSignal of its own. On Node 20, making the call's AbortSignal and the SDK's listener on it
 * cost 20 to 30 µs of wall time per call (server-everything's echo, alternated runs), a fifth of
 * what a whole call costs the bare SDK client.
 *
 * It holds only what the SDK's `Protocol.request` reads of its signal (SDK 1.x): `aborted`,
 * `reason`, `throwIfAborted()` and `addEventListener("abort", …)`. The cancellation tests run
 * through the real SDK, so a release that reads more fails them. Each call makes its own and
 * disposes of it when it settles, so nothing the SDK leaves on it outlives the call.
 */
export class RequestSignal {
  aborted = false;
  reason: unknown;
  #listeners: Array<(event: { readonly type: "abort" }) => void> = [];
  readonly #unsubscribe: () => void;

  constructor(subscribe: AbortSubscription) {
    this.#unsubscribe = subscribe((reason) => this.#abort(reason));
  }

  /** This object as the SDK's request options type it; see the class comment for what is read. */
  forSdk(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: (event: { readonly type: "abort" }) => void): void {
    // As an EventTarget does: a listener added after the abort is never called.
    if (type === "abort" && !this.aborted) this.#listeners.push(listener);
  }

  removeEventListener(type: string, listener: (event: { readonly type: "abort" }) => void): void {
    if (type !== "abort") return;
    const index = this.#listeners.indexOf(listener);
    if (index >= 0) this.#listeners.splice(index, 1);
  }

  /** Stops listening to the call and drops what the SDK added; the call is over. */
  dispose(): void {
    this.#unsubscribe();
    this.#listeners = [];
  }

  #abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    for (const listener of this.#listeners.splice(0)) {
      try {
        listener({ type: "abort" });
      } catch {
        // The SDK's listener does not throw; one that did must not keep the others from running.
      }
    }
  }
}
