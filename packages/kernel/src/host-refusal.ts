import { auditRecord, CallFacts, writeAudit } from "./audit-record.js";
import type { Decision } from "./authority.js";
import { CallAbort } from "./call-abort.js";
import type { ToolErrorCode } from "./errors.js";
import { boundSerializable } from "./execute-stage.js";
import type { CallOutcome, CallRequest } from "./kernel.js";
import type { SessionCore } from "./session-core.js";
import { fail } from "./tool.js";
import { toolContext } from "./tool-context.js";

/**
 * `Session.recordRefusal`: audits a call the host answered without dispatching it (a batch rule,
 * a tool the model may not call yet), so that every call a model made has its record. It gets a
 * call ID of the same format as a dispatched call.
 */
export async function recordRefusal(
  core: SessionCore,
  request: CallRequest,
  refusal: { code: ToolErrorCode; message: string; rule: string },
): Promise<CallOutcome> {
  const facts = new CallFacts(core.now());
  const callId = request.callId ?? core.nextCallId();
  const ctx = toolContext(core, request, callId, new CallAbort(), core.budget.deadline);
  facts.args = request.args;
  const decision: Decision = { verdict: "deny", layer: "host", rule: refusal.rule, reason: refusal.message };
  const result = fail(refusal.code, refusal.message, { layer: "host", rule: refusal.rule });
  const bounded = boundSerializable(result, core.budget.limits.toolResultBytes, request.tool);
  const entry = core.catalog.resolve(request.tool);
  const record = auditRecord(core, request, ctx, entry, decision, bounded.result, facts);
  await writeAudit(core.options.audit, record);
  return { result: bounded.result, serialized: bounded.serialized, decision, audit: record };
}
