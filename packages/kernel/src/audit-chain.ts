/**
 * Tamper evidence for audit logs. Every stored record carries its position in its log (`seq`),
 * the hash of the record before it (`prev`) and its own hash: SHA-256 over the canonical JSON of
 * the record without `hash`. Walking the log recomputes each hash and link, so an edit, a
 * removal, a swap or an insertion breaks the chain at a record {@link verifyChain} names.
 *
 * What the chain does not prove: that the newest records were not cut off the end (nothing
 * follows them to notice), that a whole log was not deleted, or that someone able to rewrite the
 * entire log from the edited record onwards did not do so. Anchor {@link ChainReport.head}
 * somewhere else (a ticket, a CI log) to close those gaps.
 */
import type { AuditDecision, AuditLayerHash, AuditRecord, AuditSink } from "./audit.js";
import type { Catalog } from "./catalog.js";
import { AuditErrorCode } from "./errors.js";
import { sha256Hex } from "./hash.js";
import { canonicalJson, canonicalJsonWith } from "./json.js";
import type { AuthorityLayer } from "./policy-schema.js";

/** A record as a store keeps it: the call's record plus its place in its log's chain. */
export interface StoredAuditRecord extends AuditRecord {
  /** Position in the log, from 0, one more than the record before it. */
  readonly seq: number;
  /** The previous record's `hash`; {@link GENESIS_HASH} for the first record of a log. */
  readonly prev: string;
  /** SHA-256 (hex) of the canonical JSON of this record without `hash`. */
  readonly hash: string;
}

/** The link the first record of a log points to. */
export const GENESIS_HASH = "0".repeat(64);

/** The end of a chain: what the next record links to. */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** Which records a reader wants; every field narrows. `since` and `until` are ISO times. */
export interface AuditFilter {
  readonly sessionId?: string;
  readonly tool?: string;
  readonly decision?: AuditDecision;
  readonly errorCode?: string;
  readonly since?: string;
  readonly until?: string;
}

/**
 * The audit store port: an append-only, hash-chained log of call records. The JSONL file
 * (`@pablo/kernel/node`) and SQLite (`@pablo/audit`) implement it. Contract: `write` must not
 * throw (it is the kernel's sink); concurrent writers to one store, in one process or many, each
 * extend the one chain without interleaving.
 */
export interface AuditStore extends AuditSink {
  /** Chains and appends a record, returning it as stored. */
  append(record: AuditRecord): StoredAuditRecord | Promise<StoredAuditRecord>;
  /** Stored records in log order, narrowed by `filter`. Unreadable entries are skipped. */
  records(filter?: AuditFilter): AsyncIterable<StoredAuditRecord>;
  /** Walks the whole chain. */
  verify(): Promise<ChainReport>;
  close(): void | Promise<void>;
  /**
   * Records that could not be written (the sink contract forbids throwing them at the kernel), for
   * the host to report: a call that ran unrecorded must not pass in silence.
   */
  readonly failures?: number;
}

/** Options of an audit store, JSONL or SQLite alike. */
export interface AuditStoreOptions {
  /**
   * `redacted` (default) keeps each call's declared accesses with secret-shaped text redacted,
   * for what-if replay; `none` drops them, for deployments that may not keep even paths and URLs.
   */
  readonly accesses?: "redacted" | "none";
  /** `fsync` after every record, so a power cut cannot lose acknowledged records either. */
  readonly durable?: boolean;
}

/** One entry of a log as read back, before anyone trusts it. */
export type LogEntry =
  | { readonly position: number; readonly record: unknown }
  | { readonly position: number; readonly unreadable: string };

/** Why a chain does not verify; `position` is where the named record sits in the log (from 0). */
export interface ChainProblem {
  readonly code: AuditErrorCode;
  readonly position: number;
  readonly seq?: number;
  readonly callId?: string;
  readonly message: string;
}

export interface ChainReport {
  readonly ok: boolean;
  /** Entries read, verified or not. */
  readonly records: number;
  /** The first record that was changed, removed, reordered or inserted. */
  readonly problem?: ChainProblem;
  /** Positions of entries that are not records (a write cut short, junk); the chain skips them. */
  readonly unreadable?: readonly number[];
  /** Records at the start of the log from before it was chained: not covered by the chain. */
  readonly unchained?: number;
  /** The last record of an intact chain: anchor it elsewhere to notice a cut-off end. */
  readonly head?: ChainHead;
}

/** The stored form of `record`, linked after `previous` (or first in its log). */
export function chainRecord(record: AuditRecord, previous: ChainHead | undefined): StoredAuditRecord {
  return storedRecord(record, chainLine(record, previous));
}

/** `record` as stored once linked as `chained` says. */
export function storedRecord(record: AuditRecord, chained: ChainedLine): StoredAuditRecord {
  const { seq, prev, hash } = chained;
  return { ...withoutChain(record), seq, prev, hash } as unknown as StoredAuditRecord;
}

/** Where a record goes in its log's chain, and its JSON line as a store writes it. */
export interface ChainedLine {
  readonly seq: number;
  readonly prev: string;
  readonly hash: string;
  /** The canonical JSON the hash was computed over, with `hash` added last. */
  readonly line: string;
}

/**
 * The chain fields and JSON line of `record` linked after `previous`. Chain fields the record
 * already carries are replaced. Nothing is copied (this runs for every call): the canonical JSON
 * is written with `seq` and `prev` added in place.
 */
export function chainLine(record: AuditRecord, previous: ChainHead | undefined): ChainedLine {
  const seq = previous ? previous.seq + 1 : 0;
  const prev = previous?.hash ?? GENESIS_HASH;
  const canonical = canonicalJsonWith(hasChainFields(record) ? withoutChain(record) : record, { seq, prev });
  const hash = sha256(canonical);
  // `canonical` is an object with at least `seq` and `prev`: drop its brace, add the hash.
  return { seq, prev, hash, line: `${canonical.slice(0, -1)},"hash":"${hash}"}` };
}

/** SHA-256 of the canonical JSON of a record without its `hash` field. */
export function recordHash(record: object): string {
  const { hash: _hash, ...rest } = record as Record<string, unknown>;
  return sha256(canonicalJson(rest));
}

/**
 * Walks a log in stored order and names the first record that breaks the chain: `changed` (its
 * hash does not match its content, or its successor's link names content that is gone),
 * `removed` (a gap), `reordered` (a link to a record stored later) or `inserted` (records a
 * successor's link skips over). Entries that are not records are listed in `unreadable` and
 * skipped.
 */
export function verifyChain(entries: readonly LogEntry[]): ChainReport {
  // An unreadable entry is a write cut short by a crash (the next writer closes its line) or junk
  // someone added; either way it is no record. Skipping it is safe: a record replaced by junk
  // leaves a gap the next record's link exposes.
  const readable = entries.filter((e) => "record" in e);
  const unreadable = entries.filter((e) => !("record" in e)).map((e) => e.position);
  const positions = new Map<string, number>();
  readable.forEach((e, i) => {
    const hash = "record" in e ? (e.record as { hash?: unknown }).hash : undefined;
    if (typeof hash === "string" && !positions.has(hash)) positions.set(hash, i);
  });
  // Records written before logs were chained carry no chain fields; the chain starts after them.
  let first = 0;
  while (first < readable.length && isUnchained(readable[first] as LogEntry)) first++;
  let head: ChainHead | undefined;
  for (let i = first; i < readable.length; i++) {
    const entry = readable[i] as LogEntry;
    const problem = entryProblem(readable, i, head, positions);
    if (problem) return { ok: false, records: entries.length, problem, ...skipped(unreadable) };
    const record = (entry as { record: StoredAuditRecord }).record;
    head = { seq: record.seq, hash: record.hash };
  }
  return {
    ok: true,
    records: entries.length,
    ...(first > 0 ? { unchained: first } : {}),
    ...skipped(unreadable),
    ...(head ? { head } : {}),
  };
}

/** SHA-256 over the catalog's native names and definition hashes: which tools, as defined. */
export function catalogHash(catalog: Catalog): string {
  const cached = catalogHashes.get(catalog);
  if (cached) return cached;
  const lines = catalog.entries.map((e) => `${e.name} ${e.definitionHash}`).sort();
  const hash = sha256(lines.join("\n"));
  catalogHashes.set(catalog, hash);
  return hash;
}

/** Each layer's ID and the SHA-256 of its canonical JSON, outermost first. */
export function layerHashes(layers: readonly AuthorityLayer[]): readonly AuditLayerHash[] {
  // A session's layer list is a frozen array replaced on narrowing: one list per array serves
  // every record of it.
  const listed = Object.isFrozen(layers) ? layerListCache.get(layers) : undefined;
  if (listed) return listed;
  const hashes = layers.map((layer) => {
    let hash = layerHashCache.get(layer);
    if (!hash) {
      hash = sha256(canonicalJson(layer));
      layerHashCache.set(layer, hash);
    }
    return Object.freeze({ id: layer.id, hash });
  });
  if (!Object.isFrozen(layers)) return hashes;
  const frozen = Object.freeze(hashes);
  layerListCache.set(layers, frozen);
  return frozen;
}

/** True when a stored record satisfies a filter. */
export function matchesFilter(record: AuditRecord, filter: AuditFilter = {}): boolean {
  if (filter.sessionId !== undefined && record.sessionId !== filter.sessionId) return false;
  if (filter.tool !== undefined && record.tool !== filter.tool && record.providerName !== filter.tool)
    return false;
  if (filter.decision !== undefined && record.decision !== filter.decision) return false;
  if (filter.errorCode !== undefined && record.errorCode !== filter.errorCode) return false;
  if (filter.since !== undefined && record.at < filter.since) return false;
  if (filter.until !== undefined && record.at > filter.until) return false;
  return true;
}

// Catalogs and layers are frozen, so a hash computed once per object stays right.
const catalogHashes = new WeakMap<Catalog, string>();
const layerHashCache = new WeakMap<AuthorityLayer, string>();
const layerListCache = new WeakMap<readonly AuthorityLayer[], readonly AuditLayerHash[]>();

function sha256(text: string): string {
  return sha256Hex(text);
}

function skipped(unreadable: readonly number[]): { unreadable?: readonly number[] } {
  return unreadable.length > 0 ? { unreadable } : {};
}

function isUnchained(entry: LogEntry): boolean {
  if (!("record" in entry) || entry.record === null || typeof entry.record !== "object") return false;
  const record = entry.record as Record<string, unknown>;
  return record["type"] === "tool.call" && !("seq" in record) && !("hash" in record) && !("prev" in record);
}

function hasChainFields(record: AuditRecord): boolean {
  return Object.hasOwn(record, "seq") || Object.hasOwn(record, "prev") || Object.hasOwn(record, "hash");
}

/** A shallow copy of `record` without `seq`, `prev` and `hash`. */
function withoutChain(record: AuditRecord): Record<string, unknown> {
  const { seq: _seq, prev: _prev, hash: _hash, ...rest } = record as Partial<StoredAuditRecord> & AuditRecord;
  return rest;
}

function entryProblem(
  entries: readonly LogEntry[],
  i: number,
  head: ChainHead | undefined,
  positions: ReadonlyMap<string, number>,
): ChainProblem | undefined {
  const entry = entries[i] as LogEntry;
  const at = (code: AuditErrorCode, message: string, index = i): ChainProblem => {
    const named = entries[index] as LogEntry;
    const record = "record" in named ? (named.record as Partial<StoredAuditRecord>) : {};
    return {
      code,
      position: named.position,
      ...(typeof record.seq === "number" ? { seq: record.seq } : {}),
      ...(typeof record.callId === "string" ? { callId: record.callId } : {}),
      message,
    };
  };
  const record = (entry as { record: Partial<StoredAuditRecord> }).record;
  if (typeof record.seq !== "number" || typeof record.prev !== "string" || typeof record.hash !== "string")
    return at(AuditErrorCode.AUDIT_RECORD_CHANGED, "record carries no chain fields");
  if (recordHash(record) !== record.hash)
    return at(AuditErrorCode.AUDIT_RECORD_CHANGED, "record content does not match its hash");
  const expectedSeq = head ? head.seq + 1 : 0;
  const expectedPrev = head?.hash ?? GENESIS_HASH;
  if (record.prev === expectedPrev && record.seq === expectedSeq) return undefined;
  return linkProblem(entries, i, record, expectedSeq, expectedPrev, positions, at);
}

/** A record whose own hash holds but whose link does not: say which record is out of place. */
function linkProblem(
  entries: readonly LogEntry[],
  i: number,
  record: Partial<StoredAuditRecord>,
  expectedSeq: number,
  expectedPrev: string,
  positions: ReadonlyMap<string, number>,
  at: (code: AuditErrorCode, message: string, index?: number) => ChainProblem,
): ChainProblem {
  const next = entries[i + 1];
  const nextRecord = next && "record" in next ? (next.record as Partial<StoredAuditRecord>) : undefined;
  // The record after this one links to what this one should have: this one was slipped in.
  if (nextRecord?.prev === expectedPrev)
    return at(AuditErrorCode.AUDIT_RECORD_INSERTED, "record is not part of the chain");
  const target = positions.get(record.prev as string);
  if (target !== undefined && target > i)
    return at(AuditErrorCode.AUDIT_RECORD_REORDERED, `record links to a record stored after it`);
  if (target !== undefined && target < i - 1)
    return at(
      AuditErrorCode.AUDIT_RECORD_INSERTED,
      `${i - 1 - target} record(s) before this one are not part of the chain`,
      target + 1,
    );
  if ((record.seq as number) < expectedSeq)
    return at(AuditErrorCode.AUDIT_RECORD_REORDERED, `seq ${record.seq} after seq ${expectedSeq - 1}`);
  if ((record.seq as number) > expectedSeq)
    return at(
      AuditErrorCode.AUDIT_RECORD_REMOVED,
      `record(s) seq ${expectedSeq}..${(record.seq as number) - 1} are missing before this one`,
    );
  // Same place, unknown link: the record before this one was rewritten, hash and all.
  return at(
    AuditErrorCode.AUDIT_RECORD_CHANGED,
    "record was rewritten: its successor links to other content",
    Math.max(0, i - 1),
  );
}
