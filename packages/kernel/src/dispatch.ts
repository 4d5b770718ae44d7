/**
 * The dispatch pipeline, top to bottom. `decideCall` runs every stage that decides (1 to 8) and
 * is the one decision both `Session.call` and `Session.dryRun` use; `dispatchCall` then asks,
 * spends, executes, bounds and records. Each stage lives in its own file:
 *
 *  1 resolve, 2 operating mode, 3 authority over the tool, 4 arguments, 5 plan,
 *  6 authority over the plan ........................................ stages.ts
 *  7 permission (verdict, then the prompt) ...................... permission-stage.ts
 *  8 budget (checked while deciding, spent after the prompt) ............ limits.ts
 *  9 mutation serialization ................................................. serial.ts
 * 10 execute, 11 bound ................................................. execute-stage.ts
 * 12 audit record, events and span ........................ audit-record.ts, telemetry.ts
 */
import type { Span } from "@opentelemetry/api";
import type { Access } from "./access.js";
import type { AuditRecord } from "./audit.js";
import { auditRecord, CallFacts, flushAudit, writeAudit } from "./audit-record.js";
import type { Decision } from "./authority.js";
import { CallAbort } from "./call-abort.js";
import { cancelledResult } from "./cancellation.js";
import type { CatalogEntry } from "./catalog.js";
import { ErrorCode } from "./errors.js";
import { boundSerializable, executeStage } from "./execute-stage.js";
import type { JsonValue } from "./json.js";
import type { CallOutcome, CallRequest, DryRunDecision } from "./kernel.js";
import { askPermission, type PermissionAsk, permissionVerdict } from "./permission-stage.js";
import type { SessionCore } from "./session-core.js";
import {
  admitStage,
  argumentsStage,
  authorityStage,
  planStage,
  resolveStage,
  staticAccesses,
} from "./stages.js";
import { fail, type ToolContext, type ToolFailure, type ToolResult } from "./tool.js";
import { toolContext } from "./tool-context.js";

/** What stages 1 to 8 decided about a call, before anything runs or anyone is asked. */
export type CallDecision =
  | {
      readonly verdict: "deny";
      readonly entry: CatalogEntry | undefined;
      readonly final: ToolFailure;
      readonly decision: Decision;
      readonly permissionAnswer?: AuditRecord["permissionAnswer"];
    }
  | (PreparedCall & { readonly verdict: "allow" })
  | (PreparedCall & { readonly verdict: "ask"; readonly ask: PermissionAsk });

interface PreparedCall {
  readonly entry: CatalogEntry;
  readonly args: JsonValue;
  readonly accesses: readonly Access[];
  readonly decision: Decision;
}

type Refusal = Extract<CallDecision, { verdict: "deny" }>;

/** The one decision function: stages 1 to 8, with no side effect beyond the tool's own planning. */
export async function decideCall(
  core: SessionCore,
  request: CallRequest,
  ctx: ToolContext,
  abort: CallAbort,
  facts: CallFacts,
): Promise<CallDecision> {
  if (abort.aborted) return refusal(undefined, cancelledResult(abort.reason), CANCELLED_EARLY);
  const prepared = await prepareCall(core, request, ctx, facts);
  if (prepared.verdict === "deny") return prepared;
  const permission = permissionVerdict(core, prepared.entry, prepared.accesses);
  if (permission.verdict === "deny") {
    return {
      ...refusal(prepared.entry, permission.final, permission.decision),
      permissionAnswer: permission.answer,
    };
  }
  // Checked before anyone is asked, so nobody is prompted for a call that could not run.
  const budget = core.budget.checkToolCall();
  if (!budget.ok) return budgetRefusal(prepared.entry, budget.reason);
  if (permission.verdict === "ask") return { ...prepared, verdict: "ask", ask: permission };
  return { ...prepared, verdict: "allow", decision: permission.decision ?? prepared.decision };
}

/** Dispatches one call through the whole pipeline. Never throws for anything a model did. */
export async function dispatchCall(core: SessionCore, request: CallRequest): Promise<CallOutcome> {
  const callId = request.callId ?? core.nextCallId();
  const abort = new CallAbort(request.signal);
  core.inflight.add(abort);
  const call: CallInFlight = {
    request,
    abort,
    ctx: toolContext(core, request, callId, abort, core.budget.deadline),
    facts: new CallFacts(core.now()),
    span: core.telemetry.startCall(request.tool, callId, core.mode),
  };
  const decided = await decideCall(core, request, call.ctx, abort, call.facts);
  if (decided.verdict === "deny") {
    call.facts.permissionAnswer = decided.permissionAnswer;
    return concludeCall(core, call, decided.entry, decided.final, decided.decision);
  }
  const { entry, args } = decided;
  let decision = decided.decision;
  if (decided.verdict === "ask") {
    const answered = await askPermission(core, entry, args, call.ctx, decided.ask, call.facts);
    call.facts.permissionAnswer = answered.answer;
    if (answered.verdict === "deny")
      return concludeCall(core, call, entry, answered.final, answered.decision);
    decision = answered.decision;
  }
  // Spent only now: the prompt may have waited past the deadline, or a parallel call spent the last one.
  const budget = core.budget.takeToolCall();
  if (!budget.ok) {
    const refused = budgetRefusal(entry, budget.reason);
    return concludeCall(core, call, entry, refused.final, refused.decision);
  }
  const result = await core.serial.mutation(entry.definition.mutates, (hold) =>
    executeStage(core, entry, args, call.ctx, abort, call.facts, hold),
  );
  return concludeCall(core, call, entry, result, decision);
}

/** `Session.dryRun`: the same decision as the call, reported instead of acted on. */
export async function dryRunCall(core: SessionCore, request: CallRequest): Promise<DryRunDecision> {
  const abort = new CallAbort(request.signal);
  try {
    const ctx = toolContext(core, request, request.callId ?? "dry-run", abort, core.budget.deadline);
    const decided = await decideCall(core, request, ctx, abort, new CallFacts(core.now()));
    if (decided.verdict === "deny") {
      const { layer, rule, reason } = decided.decision;
      return { decision: "deny", layer, rule, reason, code: decided.final.error.code };
    }
    if (decided.verdict === "ask") {
      return { decision: "ask", layer: "permission", rule: decided.ask.rule, reason: decided.ask.reason };
    }
    const { layer, rule, reason } = decided.decision;
    return { decision: "allow", layer, rule, reason };
  } finally {
    abort.dispose();
  }
}

/** Stages 1 to 6: resolve, mode, authority over the tool, arguments, plan, authority over the plan. */
async function prepareCall(
  core: SessionCore,
  request: CallRequest,
  ctx: ToolContext,
  facts: CallFacts,
): Promise<Refusal | (PreparedCall & { readonly verdict: "prepared" })> {
  const resolved = resolveStage(core.catalog, request.tool);
  if ("final" in resolved) return refusal(undefined, resolved.final, resolved.decision);
  const entry = resolved.next;
  facts.args = request.args;
  const admitted = admitStage(core.mode, core.layers, entry);
  if ("final" in admitted) return refusal(entry, admitted.final, admitted.decision);
  const parsed = argumentsStage(entry, request.args, core.budget.limits.toolArgumentBytes);
  if ("final" in parsed) return refusal(entry, parsed.final, parsed.decision);
  facts.args = parsed.next;
  const planned = await planStage(entry, parsed.next, ctx);
  if ("final" in planned) return refusal(entry, planned.final, planned.decision);
  const accesses = planned.next;
  facts.externalPath = accesses.some((a) => "root" in a && a.root === "external");
  facts.accesses = accesses;
  const full = authorityStage(core.layers, [...staticAccesses(entry), ...accesses], accesses);
  if ("final" in full) return refusal(entry, full.final, full.decision);
  const decision = full.decision ?? admitted.decision ?? ALLOW_DEFAULT;
  return { verdict: "prepared", entry, args: parsed.next, accesses, decision };
}

/** One call while it runs: what its stages share until it is recorded. */
interface CallInFlight {
  readonly request: CallRequest;
  readonly abort: CallAbort;
  readonly ctx: ToolContext;
  readonly facts: CallFacts;
  readonly span: Span | undefined;
}

/** Stages 11 and 12: bound the result after serialization, write the audit record, end the span. */
async function concludeCall(
  core: SessionCore,
  call: CallInFlight,
  entry: CatalogEntry | undefined,
  result: ToolResult,
  decision: Decision,
): Promise<CallOutcome> {
  const { request, facts } = call;
  const tool = entry?.providerName ?? request.tool;
  const bounded = boundSerializable(result, core.budget.limits.toolResultBytes, tool);
  const record = auditRecord(core, request, call.ctx, entry, decision, bounded.result, facts);
  const written = writeAudit(core.options.audit, record);
  if (written) await written;
  // A cancelled call's host is often about to be ended (Ctrl-C, a supervisor's SIGTERM): its
  // record, and any queued before it, must not wait for the end of the turn.
  if (call.abort.aborted) await flushAudit(core.options.audit);
  core.telemetry.endCall(call.span, {
    callId: call.ctx.callId,
    tool: entry?.name ?? request.tool,
    decision,
    result: bounded.result,
    prompted: facts.prompted,
    permissionWaitMs: facts.permissionWaitMs,
    durationMs: facts.durationMs,
  });
  core.inflight.release(call.abort);
  return { result: bounded.result, serialized: bounded.serialized, decision, audit: record };
}

function refusal(entry: CatalogEntry | undefined, final: ToolFailure, decision: Decision): Refusal {
  return { verdict: "deny", entry, final, decision };
}

function budgetRefusal(entry: CatalogEntry, reason: string): Refusal {
  const decision: Decision = { verdict: "deny", layer: "limits", rule: "limits.budget", reason };
  return refusal(entry, fail(ErrorCode.BUDGET_EXHAUSTED, reason), decision);
}

const CANCELLED_EARLY: Decision = Object.freeze({
  verdict: "deny",
  layer: "session",
  rule: "cancelled",
  reason: "call cancelled before it started",
});

const ALLOW_DEFAULT: Decision = Object.freeze({
  verdict: "allow",
  layer: "default",
  rule: "default",
  reason: "no rule restricts this call",
});
