import type { CallFacts } from "./audit-record.js";
import { boundResult } from "./bound.js";
import type { CallAbort } from "./call-abort.js";
import { cancelledResult } from "./cancellation.js";
import type { CatalogEntry } from "./catalog.js";
import { ErrorCode, HostErrorCode, PabloError } from "./errors.js";
import type { JsonValue } from "./json.js";
import type { SessionCore } from "./session-core.js";
import { fail, type ToolContext, type ToolResult } from "./tool.js";

const DEFAULT_CLEANUP_GRACE_MS = 30_000;

/**
 * Stage 10: runs the tool body under the call's signal. A throw becomes `TOOL_FAILED` (a
 * containment violation propagates), a malformed result or output outside the output schema
 * `TOOL_CONTRACT_VIOLATION`. Once the call aborts the tool has `cleanupGraceMs` to settle, else
 * `TOOL_CLEANUP_FAILED`; an aborted call is `TOOL_CANCELLED` or `TOOL_TIMEOUT` unless its result
 * says the change was committed.
 */
export async function executeStage(
  core: SessionCore,
  entry: CatalogEntry,
  args: JsonValue,
  ctx: ToolContext,
  abort: CallAbort,
  facts: CallFacts,
  hold: (work: Promise<unknown>) => void = () => undefined,
): Promise<ToolResult> {
  const capture = core.telemetry.captureContent;
  const bodyStarted = core.now();
  const base = { sessionId: core.id, callId: ctx.callId, tool: entry.name };
  core.telemetry.emit({ type: "tool.started", at: bodyStarted, ...base, ...(capture ? { args } : {}) });
  let result: ToolResult;
  try {
    const graceMs = core.options.cleanupGraceMs ?? DEFAULT_CLEANUP_GRACE_MS;
    const work = entry.definition.execute(args, ctx);
    // The session's mutation lock waits for the body itself, not for the report of it.
    hold(work);
    result = checkResultShape(entry, await settleWithin(work, abort, graceMs));
    if (result.auditNotes) {
      facts.notes = result.auditNotes;
      const { auditNotes: _notes, ...rest } = result;
      result = rest;
    }
  } catch (error) {
    if (error instanceof PabloError && error.code === HostErrorCode.CONTAINMENT_VIOLATION) throw error;
    result =
      error instanceof CleanupTimeout
        ? fail(
            ErrorCode.TOOL_CLEANUP_FAILED,
            "the tool did not settle after cancellation; its work may still be running",
          )
        : fail(ErrorCode.TOOL_FAILED, `${entry.providerName} failed: ${messageOf(error)}`);
  }
  facts.durationMs = core.now() - bodyStarted;
  if (
    abort.aborted &&
    !result.committed &&
    !(result.ok === false && result.error.code === ErrorCode.TOOL_CLEANUP_FAILED)
  ) {
    result = cancelledResult(abort.reason, result);
  }
  core.telemetry.emit({
    type: "tool.finished",
    at: core.now(),
    ...base,
    ok: result.ok,
    ...(result.ok ? {} : { errorCode: String(result.error.code) }),
    durationMs: facts.durationMs,
    truncated: false,
    ...(capture ? { result } : {}),
  });
  return result;
}

/** Stage 11: bounds a result; one that cannot be serialized (BigInt, cycles) becomes a contract violation. */
export function boundSerializable(
  result: ToolResult,
  maxBytes: number,
  tool: string,
): ReturnType<typeof boundResult> {
  try {
    return boundResult(result, maxBytes);
  } catch {
    // BigInt values and cycles cannot reach a model; they must not crash the host either.
    return boundResult(
      fail(ErrorCode.TOOL_CONTRACT_VIOLATION, `${tool} returned a result that is not JSON`),
      maxBytes,
    );
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class CleanupTimeout extends Error {}

/** Resolves with the tool's result; once the call aborts, waits at most `graceMs` more. */
function settleWithin(work: Promise<ToolResult>, abort: CallAbort, graceMs: number): Promise<ToolResult> {
  return new Promise<ToolResult>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopListening = abort.onAbort(() => {
      timer = setTimeout(() => reject(new CleanupTimeout()), graceMs);
    });
    work.then(
      (value) => {
        clearTimeout(timer);
        stopListening();
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        stopListening();
        reject(error);
      },
    );
  });
}

function checkResultShape(entry: CatalogEntry, result: ToolResult): ToolResult {
  const shaped =
    result !== null &&
    typeof result === "object" &&
    (result.ok === true || (result.ok === false && typeof result.error?.code === "string"));
  if (!shaped) {
    return fail(ErrorCode.TOOL_CONTRACT_VIOLATION, `${entry.providerName} returned a malformed result`);
  }
  if (result.ok && entry.outputValidator && !entry.outputValidator.check(result.data)) {
    const issues = entry.outputValidator.issues(result.data, 5);
    return fail(
      ErrorCode.TOOL_CONTRACT_VIOLATION,
      `${entry.providerName} returned output that does not match its output schema`,
      { issues },
    );
  }
  return result;
}
