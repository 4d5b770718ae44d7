import { setImmediate as nextTurn } from "node:timers/promises";

/** The call was cancelled through its signal while the tool was working. */
export class Cancelled extends Error {
  constructor() {
    super("cancelled");
    this.name = "Cancelled";
  }
}

/**
 * Lets long work (hashing a large file, walking a tree) give the event loop a turn every few
 * milliseconds, so a cancellation or deadline can be seen, and stops once the signal aborts.
 */
export class Yielder {
  readonly #signal: AbortSignal | undefined;
  readonly #sliceMs: number;
  #since = performance.now();

  constructor(signal?: AbortSignal, sliceMs = 10) {
    this.#signal = signal;
    this.#sliceMs = sliceMs;
  }

  /** Throws {@link Cancelled} once the signal has aborted. */
  async checkpoint(): Promise<void> {
    if (this.due()) await this.pause();
  }

  /**
   * The synchronous half of {@link checkpoint}, for hot loops: throws {@link Cancelled} once the
   * signal has aborted and says whether the slice is used up (then `await pause()`).
   */
  due(): boolean {
    if (this.#signal?.aborted) throw new Cancelled();
    return performance.now() - this.#since >= this.#sliceMs;
  }

  async pause(): Promise<void> {
    await nextTurn();
    this.#since = performance.now();
    if (this.#signal?.aborted) throw new Cancelled();
  }
}
