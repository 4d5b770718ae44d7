import type { Access } from "./access.js";
import type { AuditRecord } from "./audit.js";
import type { Decision } from "./authority.js";
import type { CatalogEntry } from "./catalog.js";
import { ErrorCode } from "./errors.js";
import {
  PERMISSION_TIMEOUT_MS,
  type PermissionAnswer,
  type PermissionBroker,
  type PermissionRequest,
  permissionNeed,
} from "./permission.js";
import { redactedPreview, redactValue } from "./redact.js";
import type { SessionCore } from "./session-core.js";
import { fail, type ToolContext, type ToolFailure } from "./tool.js";

/** What the permission stage decides before anyone is asked; a dry run stops here. */
export type PermissionVerdict =
  /** No prompt: `decision` is the session grant, or absent when the authority decision stands. */
  { readonly verdict: "allow"; readonly decision?: Decision } | PermissionDenial | PermissionAsk;

/** A prompt is needed, and this is the broker to ask. */
export interface PermissionAsk {
  readonly verdict: "ask";
  readonly rule: string;
  readonly reason: string;
  readonly broker: PermissionBroker;
}

export interface PermissionDenial {
  readonly verdict: "deny";
  readonly decision: Decision;
  readonly final: ToolFailure;
  readonly answer: AuditRecord["permissionAnswer"];
}

/**
 * Stage 7, the part that asks nobody: the permission mode's need (seed 001 section 6), then
 * this session's allow-session grants, then whether a broker exists to ask (none fails closed).
 */
export function permissionVerdict(
  core: SessionCore,
  entry: CatalogEntry,
  accesses: readonly Access[],
): PermissionVerdict {
  const { risk, category, effects } = entry.definition;
  const need = permissionNeed(core.permission, { risk, category, effects, accesses });
  if (need.need === "none") return { verdict: "allow" };
  if (need.need === "deny") return permissionDenial(need.rule, need.reason, undefined);
  if (core.grants.has(entry.name)) return { verdict: "allow", decision: SESSION_GRANT };
  const broker = core.options.broker;
  if (!broker) {
    return permissionDenial(
      need.rule,
      "no permission broker is available, so the request fails closed",
      "no-broker",
    );
  }
  return { verdict: "ask", rule: need.rule, reason: need.reason, broker };
}

/**
 * Stage 7, the prompt: asks the broker within the profile's timeout. Allow-session is remembered
 * for this session's tool name; a timeout, a cancelled turn and a rejected request are denials.
 */
export async function askPermission(
  core: SessionCore,
  entry: CatalogEntry,
  args: unknown,
  ctx: ToolContext,
  ask: PermissionAsk,
  facts: { prompted: boolean; permissionWaitMs: number },
): Promise<PermissionGranted | PermissionDenial> {
  const timeoutMs = core.permission.timeoutMs ?? PERMISSION_TIMEOUT_MS;
  const waitStarted = core.now();
  facts.prompted = true;
  const base = { sessionId: core.id, callId: ctx.callId, tool: entry.name };
  core.telemetry.emit({ type: "permission.requested", at: waitStarted, ...base, rule: ask.rule });
  const answer = await askWithin(ask.broker, timeoutMs, ctx.signal, {
    ...base,
    providerName: entry.providerName,
    risk: entry.definition.risk,
    category: entry.definition.category,
    argsPreview: redactedPreview(args, 2048),
    args: redactValue(args),
    reason: ask.reason,
    requester: ctx.requester,
    deadline: waitStarted + timeoutMs,
  });
  facts.permissionWaitMs = core.now() - waitStarted;
  core.telemetry.emit({
    type: "permission.answered",
    at: core.now(),
    ...base,
    answer,
    waitMs: facts.permissionWaitMs,
  });
  if (answer === "allow-once" || answer === "allow-session") {
    if (answer === "allow-session") core.grants.add(entry.name);
    const decision: Decision = {
      verdict: "allow",
      layer: "permission",
      rule: ask.rule,
      reason: `user answered ${answer}`,
    };
    return { verdict: "allow", decision, answer };
  }
  if (answer === "timeout") return permissionDenial(ask.rule, `no answer within ${timeoutMs} ms`, "timeout");
  if (answer === "cancelled") return permissionDenial(ask.rule, "the turn was cancelled", "cancelled");
  return permissionDenial(ask.rule, "the user denied permission", "deny");
}

/** The broker said yes. */
export interface PermissionGranted {
  readonly verdict: "allow";
  readonly decision: Decision;
  readonly answer: PermissionAnswer;
}

const SESSION_GRANT: Decision = Object.freeze({
  verdict: "allow",
  layer: "permission",
  rule: "permission.session-grant",
  reason: "allowed for this session",
});

function permissionDenial(
  rule: string,
  reason: string,
  answer: AuditRecord["permissionAnswer"],
): PermissionDenial {
  const message =
    answer === "deny" ? "the user denied permission for this call" : `permission denied: ${reason}`;
  return {
    verdict: "deny",
    decision: { verdict: "deny", layer: "permission", rule, reason },
    final: fail(ErrorCode.TOOL_DENIED, message, { layer: "permission", rule }),
    answer,
  };
}

/** Waits for the broker, turning a timeout, an abort or a rejection into an answer. */
async function askWithin(
  broker: PermissionBroker,
  timeoutMs: number,
  callSignal: AbortSignal,
  request: PermissionRequest,
): Promise<PermissionAnswer | "timeout" | "cancelled"> {
  const controller = new AbortController();
  const unlink = linkSignals(controller, [callSignal]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const cancelled = new Promise<"cancelled">((resolve) => {
    if (callSignal.aborted) resolve("cancelled");
    callSignal.addEventListener("abort", () => resolve("cancelled"), { once: true });
  });
  const answered = broker.request(request, controller.signal).then(
    (answer) => (answer === "allow-once" || answer === "allow-session" ? answer : "deny"),
    () => "deny" as const,
  );
  try {
    return await Promise.race([answered, timeout, cancelled]);
  } finally {
    clearTimeout(timer);
    unlink();
    controller.abort();
  }
}

/**
 * Aborts `controller` when any source aborts, and returns a function that detaches the listeners.
 * Cheaper than `AbortSignal.any`, which keeps weak references alive across calls on Node 20.
 */
function linkSignals(controller: AbortController, sources: readonly (AbortSignal | undefined)[]): () => void {
  const detach: Array<() => void> = [];
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      continue;
    }
    const forward = () => controller.abort(source.reason);
    source.addEventListener("abort", forward, { once: true });
    detach.push(() => source.removeEventListener("abort", forward));
  }
  return () => {
    for (const d of detach) d();
  };
}
