import { type CallOutcome, ErrorCode, type Session, type ToolResult } from "@pablo/kernel";
import type { BudgetUsage, CallRecord, Denial, FileChange, SubmittedArtifact } from "./events.js";

const DENIAL_CODES: ReadonlySet<string> = new Set([
  ErrorCode.TOOL_DENIED,
  ErrorCode.DISABLED_IN_MODE,
  ErrorCode.PLUGIN_DISABLED_IN_PLAN,
]);

/** What one prompt did, gathered as it runs: the source of the final summary. */
export class RunReport {
  readonly calls: CallRecord[] = [];
  readonly denials: Denial[] = [];
  readonly changes: FileChange[] = [];
  readonly artifacts: SubmittedArtifact[] = [];
  readonly committed: string[] = [];
  outputBytes = 0;
  largestRequestBytes = 0;
  compactions = 0;
  readonly #startedAt = Date.now();

  /** Records a call the kernel dispatched. */
  fromOutcome(agent: string, callId: string, outcome: CallOutcome, effects: readonly string[]): CallRecord {
    const { result, audit } = outcome;
    const record: CallRecord = {
      agent,
      callId,
      tool: audit.tool,
      ok: result.ok,
      ...(result.ok ? {} : { code: String(result.error.code) }),
      decision: audit.decision,
      layer: audit.layer,
      rule: audit.rule,
      prompted: audit.prompted,
      permissionWaitMs: audit.permissionWaitMs,
      durationMs: audit.durationMs,
      committed: result.committed === true,
      ...fileFacts(result, effects),
    };
    this.#add(record);
    return record;
  }

  /** Records a call the loop answered itself without dispatching it (not loaded, batch refused). */
  local(agent: string, callId: string, tool: string, code: string, rule: string): CallRecord {
    const record: CallRecord = {
      agent,
      callId,
      tool,
      ok: false,
      code,
      decision: "deny",
      layer: "loop",
      rule,
      prompted: false,
      permissionWaitMs: 0,
      durationMs: 0,
      committed: false,
    };
    this.#add(record);
    return record;
  }

  budgets(session: Session): BudgetUsage {
    const budget = session.budget;
    return {
      modelCalls: budget.modelCallsUsed,
      toolCalls: budget.toolCallsUsed,
      elapsedMs: Date.now() - this.#startedAt,
      remainingMs: budget.remainingMs(),
      events: budget.eventsEmitted,
      eventsDropped: budget.eventsDropped,
      outputBytes: this.outputBytes,
      largestRequestBytes: this.largestRequestBytes,
      compactions: this.compactions,
    };
  }

  #add(record: CallRecord): void {
    this.calls.push(record);
    if (record.committed) this.committed.push(record.callId);
    // A call the pipeline refused (policy, mode, permission, a spent budget) is a denial, so the
    // summary counts what each call's line says.
    if (record.decision === "deny" || (record.code !== undefined && DENIAL_CODES.has(record.code))) {
      this.denials.push({
        agent: record.agent,
        callId: record.callId,
        tool: record.tool,
        code: record.code ?? ErrorCode.TOOL_DENIED,
        layer: record.layer,
        rule: record.rule,
      });
    }
    if (record.review) {
      this.changes.push({
        path: record.review.path,
        reviewId: record.review.id,
        callId: record.callId,
        tool: record.tool,
      });
    }
  }
}

/**
 * The file a read or write call touched and the revision it saw or made, and the review snapshot of
 * a workspace change. Read from the result's data by shape (`path`, `revision`, `review.snapshotId`),
 * so any file tool that reports them takes part.
 */
function fileFacts(result: ToolResult, effects: readonly string[]): Pick<CallRecord, "file" | "review"> {
  if (!result.ok || result.data === null || typeof result.data !== "object" || Array.isArray(result.data))
    return {};
  const data = result.data as Record<string, unknown>;
  const facts: { -readonly [K in "file" | "review"]?: NonNullable<CallRecord[K]> } = {};
  const touchesFiles = effects.includes("fs.read") || effects.includes("fs.write");
  if (touchesFiles && typeof data["path"] === "string" && typeof data["revision"] === "string") {
    facts.file = { path: data["path"], revision: data["revision"] };
  }
  const review = data["review"];
  if (review !== null && typeof review === "object" && !Array.isArray(review)) {
    const r = review as Record<string, unknown>;
    if (typeof r["snapshotId"] === "string" && typeof r["path"] === "string") {
      facts.review = { path: r["path"], id: r["snapshotId"] };
    }
  }
  return facts;
}
