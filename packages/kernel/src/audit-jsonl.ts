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
  type ChainHead,
  type ChainReport,
  chainRecord,
  type LogEntry,
  matchesFilter,
  type StoredAuditRecord,
  verifyChain,
} from "./audit-chain.js";
import { withFileLock } from "./file-lock.js";

/**
 * The audit log as a file of JSON lines, hash-chained. Each record is appended while holding a
 * lock file: the store reads the last record's hash, links the new record to it and writes the
 * whole line in one `write(2)` to an `O_APPEND` descriptor, before the call's outcome is returned.
 * So concurrent sessions and processes extend one chain without interleaving, and a process
 * killed at any moment loses at most the record it was writing.
 */
export class JsonlAuditStore implements AuditStore {
  readonly path: string;
  readonly options: AuditStoreOptions;
  /** Appends that could not be written (the sink contract forbids throwing them at the kernel). */
  failures = 0;
  #fd: number | undefined;
  /** The head this store last wrote and the file size after it: valid while nobody else wrote. */
  #cached: { head: ChainHead; size: number } | undefined;

  constructor(path: string, options: AuditStoreOptions = {}) {
    this.path = path;
    this.options = options;
  }

  write(record: AuditRecord): void {
    try {
      this.append(record);
    } catch {
      this.failures++;
    }
  }

  append(record: AuditRecord): StoredAuditRecord {
    const fd = this.#open();
    const kept = this.options.accesses === "none" ? withoutAccesses(record) : record;
    return withFileLock(this.path, () => {
      const size = fstatSync(fd).size;
      const head = this.#cached?.size === size ? this.#cached.head : lastHead(fd, size);
      const stored = chainRecord(kept, head);
      // A line cut short by a crash is closed first, so this record starts a line of its own.
      const text = `${size > 0 && !endsWithNewline(fd, size) ? "\n" : ""}${JSON.stringify(stored)}\n`;
      writeAll(fd, Buffer.from(text, "utf8"));
      if (this.options.durable) fsyncSync(fd);
      this.#cached = { head: { seq: stored.seq, hash: stored.hash }, size: fstatSync(fd).size };
      return stored;
    }).value;
  }

  async *records(filter: AuditFilter = {}): AsyncIterable<StoredAuditRecord> {
    for (const entry of readLogEntries(this.path)) {
      if ("record" in entry && matchesFilter(entry.record as AuditRecord, filter))
        yield entry.record as StoredAuditRecord;
    }
  }

  async verify(): Promise<ChainReport> {
    return verifyChain(readLogEntries(this.path));
  }

  /** Records are written as they come; kept so hosts written for the batching sink still work. */
  flush(): void {}

  /** Bytes in the file, from the open descriptor. */
  size(): number {
    return this.#fd === undefined ? 0 : fstatSync(this.#fd).size;
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    this.#cached = undefined;
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
 * Every line of a JSONL log as a {@link LogEntry}, blank lines skipped. A file that does not exist
 * is an empty log.
 */
export function readLogEntries(path: string): LogEntry[] {
  if (!existsSync(path)) return [];
  const entries: LogEntry[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const position = entries.length;
    try {
      entries.push({ position, record: JSON.parse(line) as unknown });
    } catch {
      entries.push({ position, unreadable: line.slice(0, 200) });
    }
  }
  return entries;
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

function writeAll(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}
