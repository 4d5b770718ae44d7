import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import type { AuditRecord } from "./audit.js";
import type { AuditStoreOptions } from "./audit-chain.js";

/**
 * A worker thread that chains and writes a JSONL audit store's batches, so the calling thread's
 * share of a record is handing it over (a structured clone), not its canonical JSON, SHA-256,
 * lock and `write(2)`. The worker writes through a {@link JsonlAuditStore} of its own on the same
 * file, under the same lock, so the chain is the one every other writer extends.
 *
 * Batches are kept here until the worker counts them written (a shared counter, so the calling
 * thread can wait for it synchronously: in a flush, a read, and in the `exit` hook, where the
 * worker still runs). A worker that dies, or does not answer within {@link WAIT_LIMIT_MS}, is
 * stopped and its unwritten batches are handed back to be written on the calling thread; a batch
 * the worker wrote in the instant before it died is then written twice, which an audit log
 * prefers to losing it.
 */
export class OffThreadWriter {
  readonly #worker: Worker;
  /**
   * `[0]`: batches written; `[1]`: records the worker could not write; `[2]`: 1 once the worker
   * ended; `[3]`: 1 once it is ready for batches.
   */
  readonly #counts = new Int32Array(new SharedArrayBuffer(16));
  /** Posted batches the worker has not counted yet, oldest first. */
  #pending: AuditRecord[][] = [];
  #posted = 0;
  #stopped = false;
  readonly #onLost: (batches: AuditRecord[][]) => void;

  /**
   * A writer for `path`, or undefined where no worker can start (no built worker entry here).
   * `entry` is the worker's module (tests give one that fails).
   */
  static start(
    path: string,
    options: AuditStoreOptions,
    onLost: (batches: AuditRecord[][]) => void,
    entry = WORKER_ENTRY,
  ): OffThreadWriter | undefined {
    if (!existsSync(entry)) return undefined;
    try {
      return new OffThreadWriter(path, options, onLost, entry);
    } catch {
      return undefined;
    }
  }

  private constructor(
    path: string,
    options: AuditStoreOptions,
    onLost: (batches: AuditRecord[][]) => void,
    entry: string,
  ) {
    this.#onLost = onLost;
    const { Worker } = createRequire(import.meta.url)(
      "node:worker_threads",
    ) as typeof import("node:worker_threads");
    // No inherited options: a parent started with `-e` would have the worker run that script again.
    this.#worker = new Worker(entry, {
      workerData: { path, options: { accesses: options.accesses }, counts: this.#counts },
      execArgv: [],
    });
    // Never keeps a process alive: the exit hook waits for what is pending instead.
    this.#worker.unref();
    this.#worker.on("error", () => this.#lose());
    this.#worker.on("exit", () => this.#lose());
  }

  /** Records the worker could not write. */
  get failures(): number {
    return Atomics.load(this.#counts, 1);
  }

  /** Whether the worker has started and takes batches. */
  get ready(): boolean {
    return Atomics.load(this.#counts, 3) === 1 && !this.#stopped;
  }

  /**
   * Hands `batch` to the worker; false when the caller is to write it itself: while the worker is
   * still starting (so the calling thread never waits for its boot, and no batch is ever left
   * behind one written here), after it stopped, or for a batch a structured clone refuses. A worker
   * that falls behind holds the caller up once {@link MAX_PENDING_BATCHES} wait for it, so what is
   * held in memory, and what a SIGKILL could take, stays bounded.
   */
  post(batch: AuditRecord[]): boolean {
    if (!this.ready) return false;
    this.#collect();
    if (this.#pending.length >= MAX_PENDING_BATCHES) this.#waitFor(this.#posted - MAX_PENDING_BATCHES + 1);
    if (this.#stopped) return false;
    try {
      this.#worker.postMessage(batch);
    } catch {
      // A value a structured clone refuses: written on the calling thread instead.
      return false;
    }
    this.#pending.push(batch);
    this.#posted++;
    return true;
  }

  /** Blocks until every posted batch is written, or hands what is left back to be written here. */
  drain(): void {
    this.#waitFor(this.#posted);
  }

  /** Blocks until `batches` are counted written, or gives up on the worker. */
  #waitFor(batches: number): void {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const written = Atomics.load(this.#counts, 0);
      if (written >= batches) break;
      // The worker's end is seen here, not only through its `exit` event, which a thread blocked
      // in this loop would never get to.
      if (this.#stopped || Atomics.load(this.#counts, 2) === 1 || Date.now() > deadline) {
        this.#lose();
        return;
      }
      Atomics.wait(this.#counts, 0, written, WAIT_SLICE_MS);
    }
    this.#collect();
  }

  /** Writes what is pending and stops the worker. */
  close(): void {
    this.drain();
    this.#stopped = true;
    void this.#worker.terminate();
  }

  /** Drops the batches the worker has counted written. */
  #collect(): void {
    const settled = this.#posted - this.#pending.length;
    const written = Atomics.load(this.#counts, 0);
    if (written > settled) this.#pending.splice(0, written - settled);
  }

  /** The worker is gone or stuck: stop it and give back whatever it did not count written. */
  #lose(): void {
    if (this.#stopped && this.#pending.length === 0) return;
    this.#stopped = true;
    this.#collect();
    const lost = this.#pending;
    this.#pending = [];
    void this.#worker.terminate();
    if (lost.length > 0) this.#onLost(lost);
  }
}

/**
 * Batches handed over and not yet written before a caller waits (each at most 256 records): what
 * the worker holds in memory, and what a SIGKILL can take besides the store's queue.
 */
export const MAX_PENDING_BATCHES = 4;

/** How long a flush waits for the worker: past the file lock's own 10 s, after which it writes unlocked. */
const WAIT_LIMIT_MS = 30_000;
const WAIT_SLICE_MS = 50;

/**
 * The worker's module, beside this one once built. Under a bundler or from TypeScript sources it
 * is absent, and the store writes on the calling thread as before.
 */
const WORKER_ENTRY = fileURLToPath(new URL("./audit-offthread-worker.js", import.meta.url));
