import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { BatchScan } from "../port/types.js";
import { type ScanJob, workerSource } from "./scan-worker.js";

const IDLE_MS = 30_000;
const MAX_WORKERS = 4;
/** Files queued for one worker before they are posted together: a message costs about as much as scanning a few files. */
const POST_FILES = 256;

interface Pending {
  resolve(results: BatchScan): void;
  reject(error: Error): void;
}

interface Slot {
  readonly worker: Worker;
  jobs: ScanJob[];
  files: number;
  online: boolean;
}

/**
 * Search worker threads, started on first use, one per core up to four, and stopped after 30 s
 * without work. They hold the process open only while a batch is pending. Batches bound for one
 * worker are posted together once they name {@link POST_FILES} files, or when the event loop next
 * turns, so a tree of small directories does not pay a message (and a thread wake-up) for each.
 */
export class ScanPool {
  readonly #slots: Slot[] = [];
  readonly #pending = new Map<number, Pending>();
  #sequence = 0;
  #next = 0;
  #idle: NodeJS.Timeout | undefined;
  #flush: NodeJS.Immediate | undefined;

  /** Whether the worker threads have been started (and not stopped). */
  get running(): boolean {
    return this.#slots.length > 0;
  }

  /** Whether every worker thread is up, so a batch waits for no start-up. */
  get ready(): boolean {
    return this.#slots.length > 0 && this.#slots.every((slot) => slot.online);
  }

  /** Starts the worker threads unless they run; they stop again after 30 s without work. */
  start(): void {
    if (this.#slots.length > 0) return;
    this.#ensure();
    this.#rest();
  }

  run(job: Omit<ScanJob, "id">): Promise<BatchScan> {
    const slots = this.#ensure();
    const slot = slots[this.#next % slots.length] as Slot;
    const id = ++this.#sequence;
    clearTimeout(this.#idle);
    if (this.#pending.size === 0) for (const s of slots) s.worker.ref();
    return new Promise<BatchScan>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      slot.jobs.push({ ...job, id });
      slot.files += job.names.length;
      if (slot.files >= POST_FILES) {
        this.#post(slot);
        this.#next++;
      }
      this.#flush ??= setImmediate(() => {
        this.#flush = undefined;
        for (const s of this.#slots) this.#post(s);
      });
    });
  }

  #post(slot: Slot): void {
    if (slot.jobs.length === 0) return;
    slot.worker.postMessage(slot.jobs);
    slot.jobs = [];
    slot.files = 0;
  }

  #ensure(): Slot[] {
    if (this.#slots.length > 0) return this.#slots;
    const count = Math.max(1, Math.min(MAX_WORKERS, availableParallelism()));
    for (let i = 0; i < count; i++) {
      const slot: Slot = { worker: this.#spawn(), jobs: [], files: 0, online: false };
      slot.worker.once("online", () => {
        slot.online = true;
      });
      this.#slots.push(slot);
    }
    return this.#slots;
  }

  #spawn(): Worker {
    source ??= workerSource();
    const worker = new Worker(source, { eval: true });
    worker.unref();
    worker.on("message", (answers: { id: number; result: BatchScan }[]) => {
      for (const answer of answers) this.#settle(answer.id, answer.result);
    });
    // A worker stopped by close() has left the slots; its exit must not fail the batches of the
    // workers started after it.
    const live = () => this.#slots.some((slot) => slot.worker === worker);
    worker.on("error", (error) => {
      if (live()) this.#fail(error);
    });
    worker.on("exit", () => {
      const index = this.#slots.findIndex((slot) => slot.worker === worker);
      if (index < 0) return;
      this.#slots.splice(index, 1);
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
    for (const slot of this.#slots) slot.worker.unref();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.close(), IDLE_MS);
    this.#idle.unref();
  }

  /** Stops the workers, failing batches still pending; a later batch starts them again. */
  close(): void {
    const slots = this.#slots.splice(0);
    clearTimeout(this.#idle);
    for (const pending of this.#pending.values())
      pending.reject(new Error("the search workers were stopped"));
    this.#pending.clear();
    for (const slot of slots) void slot.worker.terminate();
  }
}

let shared: ScanPool | undefined;
let source: string | undefined;

/** The process-wide pool the local port uses. */
export function sharedScanPool(): ScanPool {
  shared ??= new ScanPool();
  return shared;
}
