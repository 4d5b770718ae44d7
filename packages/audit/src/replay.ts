import {
  type AuditFilter,
  type AuditRecord,
  type AuditStore,
  type AuthorityLayer,
  type Redecision,
  redecide,
} from "@pablo/kernel";

/** A decision in replay terms: `ask` is a call that prompts (or would, had a broker been there). */
export interface ReplayVerdict {
  readonly verdict: "allow" | "ask" | "deny";
  readonly layer: string;
  readonly rule: string;
}

/** How a recorded call fares under the new authority. */
export type ReplayChangeKind = "now-denied" | "now-allowed" | "rule-changed";

export interface ReplayedCall {
  readonly at: string;
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  readonly before: ReplayVerdict;
}

export interface ReplayChange extends ReplayedCall {
  readonly kind: ReplayChangeKind;
  readonly after: ReplayVerdict & { readonly reason: string };
}

export interface ReplayReport {
  /** Records replayed. */
  readonly total: number;
  readonly unchanged: number;
  readonly changes: readonly ReplayChange[];
  /** Calls the record cannot decide again (refused before declaring accesses, or none kept). */
  readonly undetermined: ReadonlyArray<ReplayedCall & { readonly reason: string }>;
}

/**
 * Re-decides every record under `layers` with the kernel's {@link redecide}: nothing runs, nothing
 * is written. Each record keeps its own operating mode and permission mode.
 */
export function replayRecords(
  records: Iterable<AuditRecord>,
  layers: readonly AuthorityLayer[],
): ReplayReport {
  let total = 0;
  let unchanged = 0;
  const changes: ReplayChange[] = [];
  const undetermined: Array<ReplayedCall & { reason: string }> = [];
  for (const record of records) {
    total++;
    const call: ReplayedCall = {
      at: record.at,
      sessionId: record.sessionId,
      callId: record.callId,
      tool: record.tool,
      before: recordedVerdict(record),
    };
    const after = redecide(record, layers);
    if (after.verdict === "undetermined") {
      undetermined.push({ ...call, reason: after.reason });
      continue;
    }
    const kind = changeKind(call.before, after);
    if (kind === undefined) unchanged++;
    else
      changes.push({
        ...call,
        kind,
        after: { verdict: after.verdict, layer: after.layer, rule: after.rule, reason: after.reason },
      });
  }
  return { total, unchanged, changes, undetermined };
}

/** {@link replayRecords} over a store's records, narrowed by `filter`. */
export async function replayStore(
  store: AuditStore,
  layers: readonly AuthorityLayer[],
  filter: AuditFilter = {},
): Promise<ReplayReport> {
  const records: AuditRecord[] = [];
  for await (const record of store.records(filter)) records.push(record);
  return replayRecords(records, layers);
}

/** What the record says happened, in replay terms. */
export function recordedVerdict(record: AuditRecord): ReplayVerdict {
  // A call that reached the prompt counts as asking whatever the answer, a missing broker included:
  // the new authority decides whether it would prompt again, not what the person would answer.
  const asked = record.prompted || record.permissionAnswer !== undefined || record.rule === SESSION_GRANT;
  return { verdict: asked ? "ask" : record.decision, layer: record.layer, rule: record.rule };
}

const SESSION_GRANT = "permission.session-grant";

function changeKind(before: ReplayVerdict, after: Exclude<Redecision, { verdict: "undetermined" }>) {
  const wasDenied = before.verdict === "deny";
  const isDenied = after.verdict === "deny";
  if (!wasDenied && isDenied) return "now-denied" as const;
  if (wasDenied && !isDenied) return "now-allowed" as const;
  // A session grant names no asking rule; it stays the same as long as the call would still ask.
  if (before.rule === SESSION_GRANT && after.verdict === "ask") return undefined;
  if (before.verdict !== after.verdict || before.layer !== after.layer || before.rule !== after.rule)
    return "rule-changed" as const;
  return undefined;
}
