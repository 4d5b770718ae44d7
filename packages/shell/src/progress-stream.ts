import { StringDecoder } from "node:string_decoder";

export interface ProgressStreamOptions {
  /** Most bytes one event carries. */
  readonly maxEventBytes?: number;
  /** Least time between two events of the stream. */
  readonly intervalMs?: number;
}

/**
 * Streams one output stream to the host as coalesced progress events. The event rate is bounded
 * by the interval and each event by its byte bound: bytes that arrive while the pending event is
 * full are counted, not kept, and the next event says how many were skipped. A multi-GiB flood
 * therefore costs at most one event per interval and constant memory.
 */
export class ProgressStream {
  readonly #emit: (text: string) => void;
  readonly #maxBytes: number;
  readonly #intervalMs: number;
  /** Made on the first output: most commands print nothing on one stream or the other. */
  #pending: Buffer | undefined;
  #used = 0;
  #skipped = 0;
  #decoder = new StringDecoder("utf8");
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastEmit = 0;

  constructor(emit: (text: string) => void, options: ProgressStreamOptions = {}) {
    this.#emit = emit;
    this.#maxBytes = options.maxEventBytes ?? 16 * 1024;
    this.#intervalMs = options.intervalMs ?? 100;
  }

  push(chunk: Buffer): void {
    const room = this.#maxBytes - this.#used;
    const take = Math.min(room, chunk.length);
    if (take > 0) {
      this.#pending ??= Buffer.allocUnsafe(this.#maxBytes);
      chunk.copy(this.#pending, this.#used, 0, take);
      this.#used += take;
    }
    this.#skipped += chunk.length - take;
    if (this.#timer === undefined) {
      const wait = Math.max(0, this.#lastEmit + this.#intervalMs - Date.now());
      this.#timer = setTimeout(() => this.flush(), wait);
    }
  }

  /** Emits what is pending now. Called by the timer and once more when the stream ends. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#used === 0 && this.#skipped === 0) return;
    let text = this.#pending ? this.#decoder.write(this.#pending.subarray(0, this.#used)) : "";
    if (this.#skipped > 0) {
      // The skipped bytes break the character stream, so the decoder starts over after them.
      text += `${this.#decoder.end()}\n[… ${this.#skipped} bytes not streamed …]\n`;
      this.#decoder = new StringDecoder("utf8");
    }
    this.#used = 0;
    this.#skipped = 0;
    this.#lastEmit = Date.now();
    if (text !== "") this.#emit(text);
  }

  /** Emits the rest, including a character left incomplete at the end. */
  end(): void {
    this.flush();
    const rest = this.#decoder.end();
    if (rest !== "") this.#emit(rest);
  }
}
