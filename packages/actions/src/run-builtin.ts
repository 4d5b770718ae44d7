import { ErrorCode, fail, type JsonValue, ok, type ToolResult } from "@pablo/kernel";
import type { Redactor } from "@pablo/shell/redact";
import type { ExecuteContext } from "./execute-action.js";
import { applyFilters, type FilterInput } from "./filters.js";
import type { LoadedAction } from "./loaded-action.js";
import { OutputBudget } from "./output-budget.js";

/**
 * Runs a builtin action within its timeout, then redacts every string of its result and filters
 * and bounds its text output exactly as a program's stdout.
 */
export async function executeBuiltinAction(
  action: LoadedAction,
  params: Readonly<Record<string, unknown>>,
  filters: FilterInput,
  context: ExecuteContext,
): Promise<ToolResult> {
  const builtin = action.builtin;
  if (!builtin) throw new Error("not a builtin action");
  const timeoutMs = Math.min(action.timeoutMs, Math.max(0, context.deadline - Date.now()));
  const timeout = AbortSignal.timeout(Math.max(1, timeoutMs));
  const signal = AbortSignal.any([context.signal, timeout]);
  const outcome = await builtin.handler.run(builtin.config, params, {
    signal,
    deadline: performance.now() + timeoutMs,
  });
  if (context.signal.aborted) return fail(ErrorCode.TOOL_CANCELLED, "the action was cancelled");
  if (timeout.aborted)
    return fail(ErrorCode.TOOL_TIMEOUT, `the action did not finish within ${action.timeoutMs} ms`);
  if (!outcome.ok)
    return { ...outcome, error: { ...outcome.error, message: action.redact(outcome.error.message) } };
  const budget = new OutputBudget(action.maxOutputBytes);
  const data = redactDeep(outcome.data, action.redact) as Record<string, JsonValue>;
  const dataText = budget.take(JSON.stringify(data));
  if (dataText.truncated) {
    return ok({ truncated: true, scanLimited: outcome.scanLimited === true, preview: dataText.text });
  }
  if (outcome.text === undefined)
    return ok({ ...data, scanLimited: outcome.scanLimited === true, truncated: false });
  const filtered = applyFilters(action.redact(outcome.text), filters);
  const text = budget.take(filtered.text);
  return ok({
    ...data,
    text: text.text,
    lines: filtered.lines,
    ...(filtered.count !== undefined ? { count: filtered.count } : {}),
    scanLimited: outcome.scanLimited === true,
    truncated: text.truncated,
  });
}

function redactDeep(value: JsonValue, redact: Redactor): JsonValue {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (value !== null && typeof value === "object") {
    const out: Record<string, JsonValue> = {};
    for (const [key, child] of Object.entries(value)) out[key] = redactDeep(child, redact);
    return out;
  }
  return value;
}
