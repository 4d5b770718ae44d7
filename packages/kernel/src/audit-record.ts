import type { Access } from "./access.js";
import type { AuditRecord, AuditSink, AuditSubject } from "./audit.js";
import { catalogHash, layerHashes } from "./audit-chain.js";
import type { Decision } from "./authority.js";
import type { Catalog, CatalogEntry } from "./catalog.js";
import { sha256Hex } from "./hash.js";
import { canonicalJson } from "./json.js";
import type { CallRequest } from "./kernel.js";
import type { PermissionProfile } from "./permission.js";
import type { AuthorityLayer } from "./policy-schema.js";
import { redactedPreview, redactValue } from "./redact.js";
import type { ToolContext, ToolResult } from "./tool.js";

/** What the stages of one call learn for its audit record, filled in as the call goes. */
export class CallFacts {
  readonly started: number;
  args: unknown = undefined;
  prompted = false;
  permissionAnswer: AuditRecord["permissionAnswer"] = undefined;
  permissionWaitMs = 0;
  durationMs = 0;
  externalPath = false;
  /** What stage 5 planned; kept (redacted) so a what-if replay can re-decide the call. */
  accesses: readonly Access[] | undefined = undefined;
  notes: AuditRecord["notes"] = undefined;
  constructor(started: number) {
    this.started = started;
  }
}

/** Where a call ran, for its audit record (a session core is one). */
export interface AuditScope {
  readonly id: string;
  readonly mode: string;
  readonly now: () => number;
  /** The authority in force, recorded by hash (a session core has all three). */
  readonly catalog?: Catalog;
  readonly layers?: readonly AuthorityLayer[];
  readonly permission?: PermissionProfile;
}

/** The one audit record of a call, denied calls included. */
export function auditRecord(
  scope: AuditScope,
  request: CallRequest,
  ctx: ToolContext,
  entry: CatalogEntry | undefined,
  decision: Decision,
  result: ToolResult,
  facts: CallFacts,
): AuditRecord {
  const totalMs = scope.now() - facts.started;
  // Assigned field by field in one order rather than spread together: a conditional spread
  // allocates an object per optional field, and this runs for every call.
  const record: RecordInProgress = {
    type: "tool.call",
    at: isoTime(facts.started),
    sessionId: scope.id,
    turnId: ctx.turnId,
    callId: ctx.callId,
    tool: entry?.name ?? request.tool,
    providerName: entry?.providerName ?? request.tool,
  };
  if (ctx.requester) record.requester = ctx.requester;
  record.argsHash = sha256Hex(argumentText(facts.args));
  record.argsPreview = redactedPreview(typeof facts.args === "string" ? safeParse(facts.args) : facts.args);
  record.mode = scope.mode;
  record.decision = decision.verdict;
  record.layer = decision.layer;
  record.rule = decision.rule;
  record.reason = decision.reason;
  record.prompted = facts.prompted;
  if (facts.permissionAnswer) record.permissionAnswer = facts.permissionAnswer;
  record.externalPath = facts.externalPath;
  record.permissionWaitMs = facts.permissionWaitMs;
  record.durationMs = facts.durationMs;
  record.overheadMs = Math.max(0, totalMs - facts.permissionWaitMs - facts.durationMs);
  record.totalMs = totalMs;
  record.ok = result.ok;
  if (!result.ok) record.errorCode = String(result.error.code);
  if (result.committed) record.committed = true;
  if (result.truncated) record.truncated = true;
  if (facts.notes) record.notes = facts.notes;
  addAuthorityFacts(record, scope, entry, facts);
  return record as AuditRecord;
}

/** An audit record while {@link auditRecord} fills it in. */
type RecordInProgress = { -readonly [K in keyof AuditRecord]?: AuditRecord[K] };

/** The authority a call was decided under, and what a replay needs to decide it again. */
function addAuthorityFacts(
  out: RecordInProgress,
  scope: AuditScope,
  entry: CatalogEntry | undefined,
  facts: CallFacts,
): void {
  if (scope.permission) out.permissionMode = scope.permission.mode;
  if (scope.catalog) out.catalogHash = catalogHash(scope.catalog);
  if (scope.layers) out.layers = layerHashes(scope.layers);
  if (entry) out.subject = subjectOf(entry.definition);
  // Declared accesses name paths, commands and URLs, never content; secret-shaped text in them
  // (a token in a query string, a password in argv) is redacted like an argument preview.
  if (facts.accesses)
    out.accesses = facts.accesses.length === 0 ? [] : (redactValue(facts.accesses) as readonly Access[]);
}

/** What a replay needs of the tool itself, as it is defined at the call. */
function subjectOf(definition: CatalogEntry["definition"]): AuditSubject {
  const subject: { -readonly [K in keyof AuditSubject]: AuditSubject[K] } = {
    risk: definition.risk,
    category: definition.category,
    effects: [...definition.effects],
  };
  if (definition.scope?.length) subject.scope = definition.scope;
  return subject;
}

/**
 * Hands the record to the sink; a promise only when the sink returned one, so a synchronous sink
 * costs the call no extra turn of the microtask queue.
 */
export function writeAudit(sink: AuditSink | undefined, record: AuditRecord): void | Promise<void> {
  if (!sink) return;
  try {
    const pending = sink.write(record);
    if (pending) return pending.catch(() => undefined);
  } catch {
    // Contract: sinks do not throw. One that does must not turn a finished call into a crash.
  }
}

/** Asks a batching sink to write out what it queued (after a cancelled call). */
export async function flushAudit(sink: AuditSink | undefined): Promise<void> {
  if (!sink?.flush) return;
  try {
    await sink.flush();
  } catch {
    // Contract: sinks do not throw; see writeAudit.
  }
}

/**
 * `new Date(ms).toISOString()`, remembered for the last time asked: calls come many to a
 * millisecond, and the conversion costs about half a microsecond, a fifteenth of a dispatch.
 */
function isoTime(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIso = new Date(ms).toISOString();
    lastIsoMs = ms;
  }
  return lastIso;
}

let lastIsoMs = Number.NaN;
let lastIso = "";

/** The text the argument hash covers: raw text as the model sent it, else canonical JSON. */
function argumentText(args: unknown): string {
  try {
    return typeof args === "string" ? args : canonicalJson(args ?? null);
  } catch {
    return "[unserializable]";
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 512);
  }
}
