import { isUtf8 } from "node:buffer";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { BatchScan, Pacer } from "../port/types.js";
import { findLines, literalNeedle } from "./lines.js";
import {
  CLAIM_DROPPED,
  CLAIM_HERE,
  emptyScan,
  type FileScanner,
  fileScanner,
  type ScanJob,
  workerSource,
} from "./scan-worker.js";

const IDLE_MS = 30_000;
/** Workers besides the calling thread, which scans too: one per further core, up to three. */
const MAX_WORKERS = 3;
/**
 * Files per worker the calling thread leaves queued when it has other work: more than a worker
 * scans while the calling thread scans one batch and walks on (batches are at most 128 files).
 */
const SPARE_FILES = 256;

export interface ScanPoolOptions {
  /** Worker threads to start (default: one per core beyond the calling thread's, 1 to 3); 0 scans only here. */
  readonly workers?: number | undefined;
}

interface Queued {
  readonly job: ScanJob;
  /** What {@link ScanPool.cancel} recognizes the batch by (the search's request object). */
  readonly group: object | undefined;
  resolve(results: BatchScan): void;
  reject(error: Error): void;
}

interface Slot {
  readonly worker: Worker;
  online: boolean;
}

/**
 * Search worker threads, started on first use and stopped after 30 s without work, plus the
 * calling thread. Every batch is posted to every worker at once and goes to whoever claims it
 * first (a compare-and-swap on a word shared with the batch): a worker as soon as it is free, or
 * the calling thread through {@link scanHere} whenever it has nothing better to do. So a cold pool
 * costs nothing while its threads boot (the calling thread takes the batches meanwhile), and no
 * worker waits for the calling thread to hand it work. Workers hold the process open only while a
 * batch is pending.
 */
export class ScanPool {
  readonly #workers: number;
  readonly #slots: Slot[] = [];
  readonly #pending = new Map<number, Queued>();
  /** Batches in the order they were made; those already claimed are dropped from the front. */
  #queue: Queued[] = [];
  #head = 0;
  /** Files in `#queue` from `#head` on: what is still to take, give or take a claim in flight. */
  #queuedFiles = 0;
  #sequence = 0;
  #idle: NodeJS.Timeout | undefined;
  #here: FileScanner | undefined;

  constructor(options: ScanPoolOptions = {}) {
    this.#workers = options.workers ?? Math.max(1, Math.min(MAX_WORKERS, availableParallelism() - 1));
  }

  /** Whether the worker threads have been started (and not stopped). */
  get running(): boolean {
    return this.#slots.length > 0;
  }

  /** Whether every worker thread is up. */
  get ready(): boolean {
    return this.#slots.length > 0 && this.#slots.every((slot) => slot.online);
  }

  /** Starts the worker threads unless they run; they stop again after 30 s without work. */
  start(): void {
    if (this.#slots.length > 0 || this.#workers === 0) return;
    this.#ensure();
    this.#rest();
  }

  /**
   * Queues a batch; it is answered by a worker or by {@link scanHere}, whichever claims it first.
   * `group` (any object) names the batches {@link cancel} may drop together.
   */
  run(batch: Omit<ScanJob, "id" | "claim">, group?: object): Promise<BatchScan> {
    const slots = this.#ensure();
    const id = ++this.#sequence;
    const job: ScanJob = { ...batch, id, claim: new Int32Array(new SharedArrayBuffer(4)) };
    clearTimeout(this.#idle);
    if (this.#pending.size === 0) for (const s of slots) s.worker.ref();
    return new Promise<BatchScan>((resolve, reject) => {
      const queued = { job, group, resolve, reject };
      this.#pending.set(id, queued);
      this.#queue.push(queued);
      this.#queuedFiles += batch.names.length;
      for (const slot of slots) slot.worker.postMessage(job);
    });
  }

  /**
   * Claims the oldest batch no worker has taken and scans it on this thread, file by file, pausing
   * when `pacer` says its slice is used up; false when nothing was left to take. With `spare`, a
   * batch is taken only while {@link SPARE_FILES} per worker would still wait for the workers, so
   * they do not run dry while this thread is busy.
   */
  async scanHere(pacer: Pacer, spare = false): Promise<boolean> {
    const queued = this.#claimOldest(spare ? SPARE_FILES * this.#workers : 0);
    if (!queued) return false;
    const { job } = queued;
    this.#here ??= fileScanner(findLines, literalNeedle, { fs, isUtf8 });
    const out = emptyScan();
    try {
      for (let i = 0; i < job.names.length; i++) {
        this.#here(job, i, out);
        if (pacer.due()) await pacer.pause();
      }
    } catch (error) {
      this.#pending.delete(job.id);
      queued.reject(error as Error);
      throw error;
    }
    this.#settle(job.id, out);
    return true;
  }

  /** Drops the batches of `group` that nobody has claimed; they reject, and no thread will open their files. */
  cancel(group: object): void {
    for (let i = this.#head; i < this.#queue.length; i++) {
      const queued = this.#queue[i] as Queued;
      const { job } = queued;
      if (queued.group !== group) continue;
      if (Atomics.compareExchange(job.claim, 0, 0, CLAIM_DROPPED) !== 0) continue;
      this.#pending.delete(job.id);
      queued.reject(new Error("the search batch was dropped"));
    }
    if (this.#pending.size === 0) this.#rest();
  }

  #claimOldest(leave: number): Queued | undefined {
    for (;;) {
      const queued = this.#queue[this.#head];
      if (!queued) {
        this.#queue = [];
        this.#head = 0;
        return undefined;
      }
      if (Atomics.load(queued.job.claim, 0) !== 0) {
        this.#pop();
        continue;
      }
      if (this.#queuedFiles - queued.job.names.length < leave) return undefined;
      this.#pop();
      if (Atomics.compareExchange(queued.job.claim, 0, 0, CLAIM_HERE) === 0) return queued;
    }
  }

  #pop(): void {
    const queued = this.#queue[this.#head++] as Queued;
    this.#queuedFiles -= queued.job.names.length;
    // Compact now and then, so a long search does not keep every batch it made.
    if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }

  #ensure(): Slot[] {
    if (this.#slots.length > 0 || this.#workers === 0) return this.#slots;
    for (let i = 0; i < this.#workers; i++) {
      const slot: Slot = { worker: this.#spawn(), online: false };
      slot.worker.once("online", () => {
        slot.online = true;
      });
      this.#slots.push(slot);
    }
    return this.#slots;
  }

  #spawn(): Worker {
    source ??= workerSource();
    const worker = new (workerThreads().Worker)(source, { eval: true });
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

  /** Fails every pending batch; those nobody claimed are dropped so no thread opens their files later. */
  #fail(error: Error): void {
    for (const pending of this.#pending.values()) {
      Atomics.compareExchange(pending.job.claim, 0, 0, CLAIM_DROPPED);
      pending.reject(error);
    }
    this.#pending.clear();
    this.#rest();
  }

  #rest(): void {
    // Nothing pending: whatever the queue still holds was claimed or dropped.
    if (this.#pending.size === 0) {
      this.#queue = [];
      this.#head = 0;
      this.#queuedFiles = 0;
    }
    for (const slot of this.#slots) slot.worker.unref();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.close(), IDLE_MS);
    this.#idle.unref();
  }

  /** Stops the workers, failing batches still pending; a later batch starts them again. */
  close(): void {
    const slots = this.#slots.splice(0);
    clearTimeout(this.#idle);
    this.#fail(new Error("the search workers were stopped"));
    clearTimeout(this.#idle);
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

/**
 * node:worker_threads, loaded when the first worker starts: every process that opens the local
 * disk imports this file, and most never search a tree big enough to start a worker.
 */
function workerThreads(): typeof import("node:worker_threads") {
  return createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads");
}
