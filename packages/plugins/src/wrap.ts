import {
  type Access,
  type AnyToolDefinition,
  type AuditNotes,
  DIMENSIONS,
  type Effect,
  ErrorCode,
  fail,
  type JsonValue,
  onAbortOf,
  type Risk,
  type ToolContext,
  type ToolResult,
} from "@pablo/kernel";
import { messageOf } from "./diagnostics.js";
import { pluginNativeName, pluginProviderName } from "./naming.js";
import type { PluginTool } from "./sdk.js";

export interface WrapOptions {
  readonly pluginId: string;
  /** The manifest's risk, already defaulted to medium when missing or invalid. */
  readonly risk: Risk;
  /** The manifest's effects. */
  readonly effects: readonly Effect[];
  readonly timeoutMs: number;
}

/**
 * Turns a plugin's tool into a kernel tool. The kernel then applies the mode matrix (category
 * `plugin`: Agent only), authority, permission, budgets, bounding and audit exactly as for a
 * built-in. The wrapper adds what untrusted in-process code needs: nothing it throws (not even
 * a host-fault error) leaves `accesses` or `execute`; a malformed or unserializable result is
 * `TOOL_FAILED`; a call that outlives the plugin's time limit is `TOOL_TIMEOUT`.
 */
export function toKernelTool(tool: PluginTool, options: WrapOptions): AnyToolDefinition {
  const native = pluginNativeName(options.pluginId, tool.name);
  const label = `plugin ${options.pluginId} tool ${tool.name}`;
  const plan = tool.accesses;
  return {
    name: native,
    providerName: pluginProviderName(options.pluginId, tool.name).name,
    description: tool.description,
    summary: tool.summary,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    risk: options.risk,
    effects: [...options.effects],
    category: "plugin",
    mutates: tool.mutates ?? true,
    deferred: true,
    ...(plan
      ? {
          accesses: async (args: unknown, ctx: ToolContext) => {
            try {
              const planned = await plan.call(tool, args, ctx);
              if (Array.isArray(planned)) {
                return planned.every(isAccess)
                  ? planned
                  : fail(ErrorCode.TOOL_FAILED, `${label} declared a malformed access`);
              }
              return isFailure(planned)
                ? normalizeFailure(planned)
                : fail(ErrorCode.TOOL_FAILED, `${label} returned a malformed access plan`);
            } catch (error) {
              return fail(ErrorCode.TOOL_FAILED, `${label} failed while planning: ${messageOf(error)}`);
            }
          },
        }
      : {}),
    execute: (args, ctx) => runGuarded(tool, args, ctx, label, options.timeoutMs),
  };
}

async function runGuarded(
  tool: PluginTool,
  args: unknown,
  ctx: ToolContext,
  label: string,
  timeoutMs: number,
): Promise<ToolResult> {
  const timer = new AbortController();
  const signal = AbortSignal.any([ctx.signal, timer.signal]);
  let work: Promise<unknown>;
  try {
    work = Promise.resolve(tool.execute(args, { ...ctx, signal, onAbort: onAbortOf(signal) }));
  } catch (error) {
    return fail(ErrorCode.TOOL_FAILED, `${label} failed: ${messageOf(error)}`);
  }
  // A result that arrives after we stopped waiting must not become an unhandled rejection.
  work.catch(() => undefined);
  let handle: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    handle = setTimeout(() => {
      timer.abort(new Error("plugin time limit"));
      resolve("timeout");
    }, timeoutMs);
  });
  try {
    const outcome = await Promise.race([work, timedOut]);
    if (outcome === "timeout") {
      return fail(ErrorCode.TOOL_TIMEOUT, `${label} did not finish within ${timeoutMs} ms`);
    }
    return normalizeResult(outcome, label);
  } catch (error) {
    return fail(ErrorCode.TOOL_FAILED, `${label} failed: ${messageOf(error)}`);
  } finally {
    clearTimeout(handle);
  }
}

/** Rebuilds the result from JSON so nothing the plugin keeps a reference to can change it later. */
function normalizeResult(value: unknown, label: string): ToolResult {
  if (value === null || typeof value !== "object") return malformed(label);
  const r = value as Record<string, unknown>;
  const committed = r["committed"] === true ? { committed: true } : {};
  const notes = auditNotesOf(r["auditNotes"]);
  if (r["ok"] === true) {
    const data = jsonCopy(r["data"] === undefined ? null : r["data"]);
    if (data === undefined) {
      return fail(ErrorCode.TOOL_FAILED, `${label} returned data that is not JSON-serializable`);
    }
    return { ok: true, data, ...committed, ...notes };
  }
  if (r["ok"] === false && isFailure(value)) return { ...normalizeFailure(value), ...committed, ...notes };
  return malformed(label);
}

function normalizeFailure(value: { error: { code: string; message: string; details?: unknown } }) {
  const details = jsonCopy(value.error.details);
  return fail(
    value.error.code,
    String(value.error.message).slice(0, 4000),
    details !== null && typeof details === "object" && !Array.isArray(details) ? details : undefined,
  );
}

function malformed(label: string): ToolResult {
  return fail(ErrorCode.TOOL_FAILED, `${label} returned a malformed result`);
}

function isFailure(value: unknown): value is { ok: false; error: { code: string; message: string } } {
  if (value === null || typeof value !== "object") return false;
  const r = value as { ok?: unknown; error?: { code?: unknown; message?: unknown } };
  return r.ok === false && typeof r.error?.code === "string" && typeof r.error?.message === "string";
}

function jsonCopy(value: unknown): JsonValue | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
  } catch {
    return undefined;
  }
}

function auditNotesOf(value: unknown): { auditNotes?: AuditNotes } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return {};
  const notes: Record<string, string | number | boolean | readonly string[]> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") notes[key] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === "string")) notes[key] = [...v];
  }
  return Object.keys(notes).length > 0 ? { auditNotes: notes } : {};
}

const DIMENSION_SET: ReadonlySet<string> = new Set(DIMENSIONS);

/** A structurally valid access: the kernel's matchers assume these shapes. */
export function isAccess(value: unknown): value is Access {
  if (value === null || typeof value !== "object") return false;
  const a = value as Record<string, unknown>;
  const dimension = a["dimension"];
  if (typeof dimension !== "string" || !DIMENSION_SET.has(dimension)) return false;
  switch (dimension) {
    case "fs.read":
    case "fs.write":
    case "executable":
    case "mcp.launcher":
      return (
        typeof a["path"] === "string" &&
        (a["root"] === undefined || ["workspace", "scratch", "external"].includes(String(a["root"])))
      );
    case "command":
      return (
        typeof a["unproven"] === "string" ||
        (typeof a["executable"] === "string" &&
          Array.isArray(a["argv"]) &&
          a["argv"].every((x) => typeof x === "string"))
      );
    case "net":
      return typeof a["url"] === "string";
    default:
      return typeof a["value"] === "string";
  }
}
