import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import type { AuditRecord } from "./audit.js";
import {
  type AuditFilter,
  type AuditStore,
  type AuditStoreOptions,
  type ChainedLine,
  type ChainHead,
  type ChainReport,
  chainLine,
  type LogEntry,
  matchesFilter,
  type StoredAuditRecord,
  storedRecord,
  verifyChain,
} from "./audit-chain.js";
import { OffThreadWriter } from "./audit-offthread.js";
import { withFileLock } from "./file-lock.js";

/** Options of the JSONL store: the common ones, and where its writing happens. */
export interface JsonlAuditStoreOptions extends AuditStoreOptions {
  /**
   * Chain and write batches on a worker thread: `"auto"` (default) once the store has written
   * {@link OFF_THREAD_AFTER_RECORDS} records (a busy session; a one-shot command never starts one),
   * `true` from the first batch, `false` never. A `durable` store always writes on the calling
   * thread, and so does one where the worker's module is not beside this one (bundled code).
   */
  readonly offThread?: boolean | "auto";
}

/**
 * The audit log as a file of JSON lines, hash-chained. Records a call hands to `write` are queued
 * and written from a `setImmediate` callback, in the event loop's next check phase (after the I/O
 * it polls for, not before it), or at once when {@link MAX_QUEUED_RECORDS} wait. While records keep
 * coming (calls to a tool server, each a few hundred microseconds), a batch waits until
 * {@link BATCH_WINDOW_MS} after the one before it, so the lock and the write are paid once per
 * window rather than once per call; a record after a quiet spell is written on the next check
 * phase as before. Each batch goes
 * out in one `write(2)` to an `O_APPEND` descriptor while holding a lock file: the store reads the
 * last record's hash under the lock, links the batch to it and writes the whole lines, so
 * concurrent sessions and processes extend one chain without interleaving, and the lock is taken
 * once per batch rather than once per call.
 *
 * Queued records are written on `flush()`, `close()`, `append()`, a read through this store,
 * after a cancelled call (the kernel flushes its sink then), and when the process exits, through
 * `process.exit` or an uncaught exception alike. What a SIGKILL or a power cut can take is the
 * queue: the current turn's records, or at most the last {@link BATCH_WINDOW_MS} of a steady
 * stream; with `durable: true` every record is written and `fsync`ed before the
 * call's outcome is returned instead.
 *
 * In a busy session the batches are chained and written on a worker thread
 * ({@link JsonlAuditStoreOptions.offThread}); everything above holds as it does on the calling
 * thread, since every flush, read, cancellation and the exit hook wait for the worker, except that
 * a SIGKILL can also take the batches handed to the worker and not yet written (at most
 * `MAX_PENDING_BATCHES`, 4, before the caller waits for it).
 */
export class JsonlAuditStore implements AuditStore {
  readonly path: string;
  readonly options: JsonlAuditStoreOptions;
  #failures = 0;
  #fd: number | undefined;
  /** Records written or handed to the worker, for {@link JsonlAuditStoreOptions.offThread} `"auto"`. */
  #handedOver = 0;
  #writer: OffThreadWriter | undefined;
  /** No worker could start here; not tried again. */
  #writerUnavailable = false;
  /** The head this store last wrote and the file size after it: valid while nobody else wrote. */
  #cached: { head: ChainHead; size: number } | undefined;
  #queue: AuditRecord[] = [];
  #scheduled = false;
  /** When the last batch was written (`Date.now()`), for the batching window. */
  #lastWrite = Number.NEGATIVE_INFINITY;
  readonly #out = new LineBuffer();

  constructor(path: string, options: JsonlAuditStoreOptions = {}) {
    this.path = path;
    this.options = options;
  }

  /** Records that could not be written (the sink contract forbids throwing them at the kernel). */
  get failures(): number {
    return this.#failures + (this.#writer?.failures ?? 0);
  }

  write(record: AuditRecord): void {
    if (this.options.durable) {
      try {
        this.append(record);
      } catch {
        this.#failures++;
      }
      return;
    }
    this.#queue.push(record);
    queued.add(this);
    installExitHook();
    if (this.#queue.length >= MAX_QUEUED_RECORDS) this.#handOff();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      // Unreferenced: a queue never keeps a process alive, the exit hook writes it instead.
      const wait = this.#lastWrite + BATCH_WINDOW_MS - Date.now();
      if (wait > 0) setTimeout(this.#flushLater, wait).unref();
      else setImmediate(this.#flushLater).unref();
    }
  }

  /** Chains and writes `record` now, after anything queued, and returns it as stored. */
  append(record: AuditRecord): StoredAuditRecord {
    this.flush();
    const kept = this.#kept([record]);
    const [chained] = this.#writeBatch(kept);
    return storedRecord(kept[0] as AuditRecord, chained as ChainedLine);
  }

  /**
   * Writes every queued record now, and waits for the worker to write what it was handed. Never
   * throws: a batch that cannot be written is counted in `failures`.
   */
  flush(): void {
    this.#handOff();
    this.#writer?.drain();
    queued.delete(this);
  }

  /** Chains and writes `records` at once, after anything queued, in one batch. */
  writeNow(records: readonly AuditRecord[]): void {
    this.flush();
    this.#writeHere(records);
  }

  async *records(filter: AuditFilter = {}): AsyncIterable<StoredAuditRecord> {
    this.flush();
    for (const entry of readLogEntries(this.path)) {
      // A line that parses but is no call record (`{}`, one without its time) is skipped like a torn
      // one: every reader of `records()` relies on the fields a record always has.
      if ("record" in entry && isCallRecord(entry.record) && matchesFilter(entry.record, filter))
        yield entry.record as StoredAuditRecord;
    }
  }

  async verify(): Promise<ChainReport> {
    this.flush();
    return verifyChain(readLogEntries(this.path));
  }

  /** Bytes in the file, from the open descriptor, queued records written first. */
  size(): number {
    this.flush();
    return this.#fd === undefined ? 0 : fstatSync(this.#fd).size;
  }

  close(): void {
    this.flush();
    if (this.#writer) {
      this.#writer.close();
      this.#failures += this.#writer.failures;
      this.#writer = undefined;
    }
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    this.#cached = undefined;
  }

  readonly #flushLater = (): void => {
    this.#scheduled = false;
    this.#handOff();
  };

  /** Takes the queue and writes it, here or by handing it to the worker (then not waiting). */
  #handOff(): void {
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    this.#lastWrite = Date.now();
    this.#handedOver += batch.length;
    const writer = this.#offThread();
    // Until the worker has written it, the exit hook must wait for it as for a queued record.
    if (writer?.post(batch)) {
      queued.add(this);
      return;
    }
    // Written here (the worker is booting, gone, or cannot take this batch), after what it holds.
    writer?.drain();
    this.#writeHere(batch);
  }

  #writeHere(batch: readonly AuditRecord[]): void {
    try {
      this.#writeBatch(this.#kept(batch));
    } catch {
      this.#failures += batch.length;
    }
  }

  /** The worker to hand batches to, started when the options and the store's traffic say so. */
  #offThread(): OffThreadWriter | undefined {
    if (this.#writer || this.#writerUnavailable) return this.#writer;
    const { offThread = "auto", durable } = this.options;
    if (durable || offThread === false) return undefined;
    if (offThread === "auto" && this.#handedOver <= OFF_THREAD_AFTER_RECORDS) return undefined;
    this.#writer = OffThreadWriter.start(this.path, this.options, (lost) => {
      // The worker died or hung: what it did not write is written here, and so is all that follows.
      this.#failures += this.#writer?.failures ?? 0;
      this.#writer = undefined;
      this.#writerUnavailable = true;
      for (const batch of lost) this.#writeHere(batch);
    });
    if (!this.#writer) this.#writerUnavailable = true;
    return this.#writer;
  }

  /**
   * Links `kept` (records as this store keeps them, see `#kept`) after the file's last record and
   * writes them in one `write(2)`, under the lock.
   */
  #writeBatch(kept: readonly AuditRecord[]): ChainedLine[] {
    const fd = this.#open();
    return withFileLock(this.path, () => {
      const size = fstatSync(fd).size;
      // Nobody wrote since this store did: its head is the file's, and its last line ended whole.
      const cached = this.#cached?.size === size ? this.#cached : undefined;
      let head = cached ? cached.head : lastHead(fd, size);
      const linked: ChainedLine[] = [];
      // A line cut short by a crash is closed first, so this batch starts a line of its own.
      const out = this.#out.start(!cached && size > 0 && !endsWithNewline(fd, size) ? "\n" : "");
      for (const record of kept) {
        const line = chainLine(record, head);
        linked.push(line);
        out.line(line.line);
        head = { seq: line.seq, hash: line.hash };
      }
      const bytes = out.bytes();
      writeAll(fd, bytes);
      out.release();
      if (this.options.durable) fsyncSync(fd);
      // The size this store expects next time; if another writer appended meanwhile it differs.
      if (head) this.#cached = { head, size: size + bytes.length };
      return linked;
    }).value;
  }

  /** What of `records` this store keeps. */
  #kept(records: readonly AuditRecord[]): readonly AuditRecord[] {
    return this.options.accesses === "none" ? records.map(withoutAccesses) : records;
  }

  #open(): number {
    if (this.#fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.#fd = openSync(this.path, "a+", 0o600);
    }
    return this.#fd;
  }
}

/**
 * How many records may wait for the end of the turn. A host dispatching in a tight loop of
 * microtasks may not yield to the event loop for a long time; this bounds memory and what a
 * SIGKILL could take.
 */
export const MAX_QUEUED_RECORDS = 256;

/** Records a store writes on the calling thread before `offThread: "auto"` starts its worker. */
export const OFF_THREAD_AFTER_RECORDS = 256;

/**
 * The least time between two batches written on their own schedule: what a steady stream of calls
 * may leave queued, and so what a SIGKILL could take from it (flushes, reads, cancellations and
 * the exit hook write at once, as ever).
 */
export const BATCH_WINDOW_MS = 5;

/** Stores with queued records, written by the exit hook. */
const queued = new Set<JsonlAuditStore>();
let exitHookInstalled = false;

/** One `exit` listener for every store: it runs on `process.exit` and after an uncaught exception. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const store of [...queued]) store.flush();
  });
}

/**
 * Every line of a JSONL log as a {@link LogEntry}, blank lines skipped. A file that does not exist
 * is an empty log.
 */
export function readLogEntries(path: string): LogEntry[] {
  if (!existsSync(path)) return [];
  const entries: LogEntry[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const position = entries.length;
    let record: unknown;
    try {
      record = JSON.parse(line) as unknown;
    } catch {
      entries.push({ position, unreadable: line.slice(0, 200) });
      continue;
    }
    // `null`, `5`, `[1,2]`: valid JSON that no store ever wrote, unreadable as a torn line is.
    if (record === null || typeof record !== "object" || Array.isArray(record))
      entries.push({ position, unreadable: line.slice(0, 200) });
    else entries.push({ position, record });
  }
  return entries;
}

/** The fields every call record has, which the readers of `records()` use without checking. */
export function isCallRecord(value: unknown): value is AuditRecord {
  if (value === null || typeof value !== "object") return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record["at"] === "string" &&
    typeof record["tool"] === "string" &&
    typeof record["callId"] === "string" &&
    typeof record["sessionId"] === "string" &&
    typeof record["decision"] === "string"
  );
}

function withoutAccesses(record: AuditRecord): AuditRecord {
  const { accesses: _accesses, ...rest } = record;
  return rest;
}

const TAIL_CHUNK = 64 * 1024;

/** The last chained record of the file, read backwards from its end. */
function lastHead(fd: number, size: number): ChainHead | undefined {
  let end = size;
  // Bytes, not text: a chunk boundary may split a multi-byte character.
  let carry = Buffer.alloc(0);
  while (end > 0) {
    const start = Math.max(0, end - TAIL_CHUNK);
    const chunk = Buffer.alloc(end - start);
    readSync(fd, chunk, 0, chunk.length, start);
    const bytes = Buffer.concat([chunk, carry]);
    let lineEnd = bytes.length;
    for (let i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] !== 0x0a) continue;
      const head = chainHeadOf(bytes.subarray(i + 1, lineEnd).toString("utf8"));
      if (head) return head;
      lineEnd = i;
    }
    // What precedes the first newline may continue in an earlier chunk.
    carry = bytes.subarray(0, lineEnd);
    end = start;
  }
  return chainHeadOf(carry.toString("utf8"));
}

function chainHeadOf(line: string): ChainHead | undefined {
  if (line.trim() === "") return undefined;
  try {
    const value = JSON.parse(line) as { seq?: unknown; hash?: unknown };
    return typeof value.seq === "number" && typeof value.hash === "string"
      ? { seq: value.seq, hash: value.hash }
      : undefined;
  } catch {
    return undefined;
  }
}

function endsWithNewline(fd: number, size: number): boolean {
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

/**
 * The bytes of one batch, encoded line by line into a buffer kept from batch to batch. A fresh
 * buffer per batch (or `Buffer.from` of the joined text) costs an allocation, a flattened string
 * and, for a batch of hundreds of records, page faults on memory the kernel has to hand over
 * anew each time; what a batch needs is bounded by {@link MAX_QUEUED_RECORDS} records.
 */
class LineBuffer {
  #buffer = Buffer.allocUnsafeSlow(64 * 1024);
  #length = 0;

  start(prefix: string): this {
    this.#length = 0;
    if (prefix !== "") this.#append(prefix);
    return this;
  }

  line(text: string): void {
    this.#append(text);
    this.#append("\n");
  }

  bytes(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }

  /** Gives back a buffer grown past what ordinary batches need. */
  release(): void {
    if (this.#buffer.length > RETAINED_BUFFER_BYTES) this.#buffer = Buffer.allocUnsafeSlow(64 * 1024);
    this.#length = 0;
  }

  #append(text: string): void {
    // A UTF-16 unit encodes to at most three bytes of UTF-8.
    const worst = this.#length + text.length * 3;
    if (worst > this.#buffer.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(worst, this.#buffer.length * 2));
      this.#buffer.copy(grown, 0, 0, this.#length);
      this.#buffer = grown;
    }
    this.#length += this.#buffer.write(text, this.#length, "utf8");
  }
}

const RETAINED_BUFFER_BYTES = 4 * 1024 * 1024;

function writeAll(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}
