import type { Access } from "./access.js";
import type { AuditRecord } from "./audit.js";
import { evaluateAuthority } from "./authority.js";
import { ErrorCode } from "./errors.js";
import { modeGate } from "./modes.js";
import { type PermissionMode, permissionNeed } from "./permission.js";
import type { AuthorityLayer } from "./policy-schema.js";
import type { OperatingMode } from "./tool.js";

/** What a recorded call would get under other layers; `ask` means it would prompt. */
export type Redecision =
  | {
      readonly verdict: "allow" | "ask" | "deny";
      readonly layer: string;
      readonly rule: string;
      readonly reason: string;
      readonly code?: string;
      /** The recorded refusal stands: it came from a stage policy does not decide (schema, budget). */
      readonly kept?: true;
    }
  | { readonly verdict: "undetermined"; readonly reason: string };

/**
 * Decides a recorded call again under `layers`, running nothing. The same pure pieces as
 * `decideCall`, in its order: the operating-mode gate, authority over the tool's static accesses,
 * authority over the declared accesses, then the permission need of the recorded permission mode.
 * What a record cannot replay is said, not guessed: a call refused before it declared accesses is
 * `undetermined` when the new layers would admit it, and a session's allow-session grants and
 * the presence of a broker are not recorded, so a call that needs a prompt is `ask`.
 */
export function redecide(record: AuditRecord, layers: readonly AuthorityLayer[]): Redecision {
  const subject = record.subject;
  if (!subject) return kept(record);
  const gate = modeGate(record.mode as OperatingMode, subject.category);
  if (gate.verdict === "deny") {
    return { verdict: "deny", layer: "mode", rule: gate.rule, reason: gate.reason, code: gate.code };
  }
  const statics: Access[] = [
    { dimension: "tool", value: record.tool },
    ...subject.effects.map((effect): Access => ({ dimension: "effect", value: effect })),
    ...(subject.scope ?? []),
  ];
  const admitted = evaluateAuthority(layers, statics);
  if (admitted.verdict === "deny") return denied(admitted);
  const accesses = record.accesses;
  if (!accesses) {
    if (record.decision === "deny" && !policyRefusal(record, layers)) return kept(record);
    return { verdict: "undetermined", reason: "the record keeps no declared accesses for this call" };
  }
  const full = evaluateAuthority(layers, [...statics, ...accesses]);
  if (full.verdict === "deny") return denied(full);
  const mode = (record.permissionMode ?? "ask") as PermissionMode;
  const need = permissionNeed({ mode }, { ...subject, accesses });
  if (need.need === "deny")
    return { verdict: "deny", layer: "permission", rule: need.rule, reason: need.reason, code: DENIED };
  if (need.need === "ask")
    return { verdict: "ask", layer: "permission", rule: need.rule, reason: need.reason };
  // Allowed by policy; a budget or cancellation refusal recorded after the decision still stands.
  if (record.decision === "deny" && !policyRefusal(record, layers)) return kept(record);
  return { verdict: "allow", layer: full.layer, rule: full.rule, reason: full.reason };
}

const DENIED = ErrorCode.TOOL_DENIED;

/**
 * Whether a recorded refusal came from policy (a layer, the mode matrix, the permission stage)
 * rather than from a stage no authority decides: the catalog, the schema, the tool's own plan, a
 * budget, a cancellation. Only a policy refusal can be lifted by new layers.
 */
function policyRefusal(record: AuditRecord, layers: readonly AuthorityLayer[]): boolean {
  if (record.rule === "cancelled" && record.layer === "session") return false;
  if (record.layer === "mode" || record.layer === "permission") return true;
  return (
    layers.some((l) => l.id === record.layer) || (record.layers ?? []).some((l) => l.id === record.layer)
  );
}

function denied(decision: { layer: string; rule: string; reason: string }): Redecision {
  return {
    verdict: "deny",
    layer: decision.layer,
    rule: decision.rule,
    reason: decision.reason,
    code: DENIED,
  };
}

function kept(record: AuditRecord): Redecision {
  return {
    verdict: record.decision,
    layer: record.layer,
    rule: record.rule,
    reason: record.reason,
    ...(record.errorCode ? { code: record.errorCode } : {}),
    kept: true,
  };
}
