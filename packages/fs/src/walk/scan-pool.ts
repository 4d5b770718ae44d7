import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { BatchScan } from "../port/types.js";
import { type ScanJob, workerSource } from "./scan-worker.js";

const IDLE_MS = 30_000;
const MAX_WORKERS = 4;

interface Pending {
  resolve(results: BatchScan): void;
  reject(error: Error): void;
}

/**
 * Search worker threads, started on first use, one per core up to four, and stopped after 30 s
 * without work. They hold the process open only while a batch is pending.
 */
export class ScanPool {
  readonly #workers: Worker[] = [];
  readonly #pending = new Map<number, Pending>();
  #sequence = 0;
  #next = 0;
  #idle: NodeJS.Timeout | undefined;

  run(job: Omit<ScanJob, "id">): Promise<BatchScan> {
    const workers = this.#ensure();
    const worker = workers[this.#next++ % workers.length] as Worker;
    const id = ++this.#sequence;
    clearTimeout(this.#idle);
    if (this.#pending.size === 0) for (const w of workers) w.ref();
    return new Promise<BatchScan>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id });
    });
  }

  #ensure(): Worker[] {
    if (this.#workers.length > 0) return this.#workers;
    const count = Math.max(1, Math.min(MAX_WORKERS, availableParallelism()));
    for (let i = 0; i < count; i++) this.#workers.push(this.#spawn());
    return this.#workers;
  }

  #spawn(): Worker {
    source ??= workerSource();
    const worker = new Worker(source, { eval: true });
    worker.unref();
    worker.on("message", (message: { id: number; result: BatchScan }) =>
      this.#settle(message.id, message.result),
    );
    worker.on("error", (error) => this.#fail(error));
    worker.on("exit", () => {
      const index = this.#workers.indexOf(worker);
      if (index >= 0) this.#workers.splice(index, 1);
      if (this.#pending.size > 0) this.#fail(new Error("a search worker exited"));
    });
    return worker;
  }

  #settle(id: number, results: BatchScan): void {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    pending?.resolve(results);
    if (this.#pending.size === 0) this.#rest();
  }

  #fail(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    this.#rest();
  }

  #rest(): void {
    for (const worker of this.#workers) worker.unref();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.close(), IDLE_MS);
    this.#idle.unref();
  }

  /** Stops the workers; a later batch starts them again. */
  close(): void {
    for (const worker of this.#workers.splice(0)) void worker.terminate();
  }
}

let shared: ScanPool | undefined;
let source: string | undefined;

/** The process-wide pool the local port uses. */
export function sharedScanPool(): ScanPool {
  shared ??= new ScanPool();
  return shared;
}
