import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import {
  type AuditFilter,
  type AuditRecord,
  type AuditStore,
  type AuditStoreOptions,
  type ChainHead,
  type ChainReport,
  chainRecord,
  type LogEntry,
  PabloError,
  type StoredAuditRecord,
  verifyChain,
} from "@pablo/kernel";
import type Database from "better-sqlite3";

/**
 * The audit log as one SQLite table in WAL mode, hash-chained like the JSONL file. Each append is
 * one `BEGIN IMMEDIATE` transaction that reads the last record's hash and inserts the next, so
 * sessions in many processes extend one chain, and a process killed at any point leaves either
 * the whole record or none of it. The record is kept as the JSON its hash covers; the indexed
 * columns (session, tool, decision, error code, time) are copies for filtering, checked against
 * that JSON by {@link SqliteAuditStore.verify}.
 */
export class SqliteAuditStore implements AuditStore {
  readonly path: string;
  readonly options: AuditStoreOptions;
  /** Appends that could not be written (the sink contract forbids throwing them at the kernel). */
  failures = 0;
  readonly #db: Database.Database;
  readonly #insert: Database.Statement;
  readonly #last: Database.Statement;
  readonly #append: (record: AuditRecord) => StoredAuditRecord;

  constructor(path: string, options: AuditStoreOptions = {}) {
    this.path = path;
    this.options = options;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.#db = openDatabase(path);
    this.#db.pragma("journal_mode = WAL");
    // WAL with NORMAL survives a killed process; FULL also survives a power cut.
    this.#db.pragma(`synchronous = ${options.durable ? "FULL" : "NORMAL"}`);
    this.#db.exec(SCHEMA);
    this.#insert = this.#db.prepare(
      `INSERT INTO audit_records (seq, at, session_id, tool, decision, error_code, hash, record)
       VALUES (@seq, @at, @sessionId, @tool, @decision, @errorCode, @hash, @record)`,
    );
    this.#last = this.#db.prepare("SELECT seq, hash FROM audit_records ORDER BY id DESC LIMIT 1");
    const append = this.#db.transaction((record: AuditRecord) => {
      const head = this.#last.get() as ChainHead | undefined;
      const stored = chainRecord(record, head);
      this.#insert.run({
        seq: stored.seq,
        at: stored.at,
        sessionId: stored.sessionId,
        tool: stored.tool,
        decision: stored.decision,
        errorCode: stored.errorCode ?? null,
        hash: stored.hash,
        record: JSON.stringify(stored),
      });
      return stored;
    });
    this.#append = (record) => append.immediate(record);
  }

  write(record: AuditRecord): void {
    try {
      this.append(record);
    } catch {
      this.failures++;
    }
  }

  append(record: AuditRecord): StoredAuditRecord {
    const kept = this.options.accesses === "none" ? withoutAccesses(record) : record;
    return this.#append(kept);
  }

  async *records(filter: AuditFilter = {}): AsyncIterable<StoredAuditRecord> {
    const { where, params } = whereClause(filter);
    const rows = this.#db.prepare(`SELECT record FROM audit_records ${where} ORDER BY id`).iterate(params);
    for (const row of rows as Iterable<{ record: string }>) {
      try {
        yield JSON.parse(row.record) as StoredAuditRecord;
      } catch {
        // An unreadable row is for verify to report; readers skip it.
      }
    }
  }

  async verify(): Promise<ChainReport> {
    const entries: LogEntry[] = [];
    const rows = this.#db.prepare("SELECT * FROM audit_records ORDER BY id").iterate();
    for (const row of rows as Iterable<Row>) entries.push(entryOf(row, entries.length));
    return verifyChain(entries);
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_records (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  session_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  decision TEXT NOT NULL,
  error_code TEXT,
  hash TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_records_session ON audit_records (session_id, id);
CREATE INDEX IF NOT EXISTS audit_records_tool ON audit_records (tool, id);
CREATE INDEX IF NOT EXISTS audit_records_decision ON audit_records (decision, id);
CREATE INDEX IF NOT EXISTS audit_records_at ON audit_records (at);
`;

interface Row {
  readonly id: number;
  readonly seq: number;
  readonly at: string;
  readonly session_id: string;
  readonly tool: string;
  readonly decision: string;
  readonly error_code: string | null;
  readonly hash: string;
  readonly record: string;
}

/** A row as a log entry; a row whose filter columns disagree with its JSON counts as changed. */
function entryOf(row: Row, position: number): LogEntry {
  let record: Partial<StoredAuditRecord>;
  try {
    record = JSON.parse(row.record) as Partial<StoredAuditRecord>;
  } catch {
    return { position, unreadable: row.record.slice(0, 200) };
  }
  const consistent =
    row.seq === record.seq &&
    row.at === record.at &&
    row.session_id === record.sessionId &&
    row.tool === record.tool &&
    row.decision === record.decision &&
    row.error_code === (record.errorCode ?? null) &&
    row.hash === record.hash;
  // Marking the copy as changed makes its hash fail, so verify names this row.
  return { position, record: consistent ? record : { ...record, columnsDisagree: true } };
}

function whereClause(filter: AuditFilter): { where: string; params: Record<string, string> } {
  const clauses: string[] = [];
  const params: Record<string, string> = {};
  const add = (sql: string, key: string, value: string | undefined) => {
    if (value === undefined) return;
    clauses.push(sql);
    params[key] = value;
  };
  add("session_id = @sessionId", "sessionId", filter.sessionId);
  add("(tool = @tool OR json_extract(record, '$.providerName') = @tool)", "tool", filter.tool);
  add("decision = @decision", "decision", filter.decision);
  add("error_code = @errorCode", "errorCode", filter.errorCode);
  add("at >= @since", "since", filter.since);
  add("at <= @until", "until", filter.until);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "", params };
}

function withoutAccesses(record: AuditRecord): AuditRecord {
  const { accesses: _accesses, ...rest } = record;
  return rest;
}

/** Code of a host where better-sqlite3 (an optional, natively built dependency) is not usable. */
export const SQLITE_UNAVAILABLE = "SQLITE_UNAVAILABLE";

/**
 * better-sqlite3 is an optional dependency: it builds natively at install, which needs a compiler
 * and Node's headers. Loaded here, on first use, so a host without it still runs everything else
 * and a deployment that asks for `store = "sqlite"` gets one clear, coded error.
 */
function openDatabase(path: string): Database.Database {
  try {
    const Sqlite = createRequire(import.meta.url)("better-sqlite3") as typeof Database;
    return new Sqlite(path, { timeout: 10_000 });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    if (/bindings file|Cannot find module 'better-sqlite3'|NODE_MODULE_VERSION/.test(reason ?? "")) {
      throw new PabloError(
        SQLITE_UNAVAILABLE,
        `[options.audit] store = "sqlite" needs better-sqlite3, which is not built on this host (${reason}); install a C++ compiler and reinstall, or use store = "jsonl"`,
      );
    }
    throw error;
  }
}
