import type { Access } from "./access.js";
import { type Decision, evaluateAuthority } from "./authority.js";
import type { Catalog, CatalogEntry } from "./catalog.js";
import { ErrorCode, HostErrorCode, PabloError } from "./errors.js";
import { type JsonValue, utf8ByteLength } from "./json.js";
import { modeGate } from "./modes.js";
import type { AuthorityLayer } from "./policy-schema.js";
import { fail, type OperatingMode, type ToolContext, type ToolFailure } from "./tool.js";

/**
 * Each dispatch stage returns either the prepared value for the next stage or a final outcome.
 * A final outcome is a failure result plus the decision that produced it, for the audit record.
 */
export type StageOutcome<T> =
  | { readonly next: T; readonly decision?: Decision }
  | { readonly final: ToolFailure; readonly decision: Decision };

/** Stage 1: the name resolves to a tool of this task's frozen catalog. */
export function resolveStage(catalog: Catalog, name: string): StageOutcome<CatalogEntry> {
  const entry = catalog.resolve(name);
  if (entry) return { next: entry };
  return {
    final: fail(ErrorCode.UNKNOWN_TOOL, `no tool named ${JSON.stringify(name)} in this task's catalog`),
    decision: {
      verdict: "deny",
      layer: "catalog",
      rule: "unknown-tool",
      reason: "the catalog has no such tool",
    },
  };
}

/** Stage 2: the operating-mode matrix, before any authority or permission decision. */
export function modeStage(mode: OperatingMode, entry: CatalogEntry): StageOutcome<CatalogEntry> {
  const verdict = modeGate(mode, entry.definition.category);
  if (verdict.verdict === "continue") return { next: entry };
  return {
    final: fail(verdict.code, `${entry.providerName}: ${verdict.reason}`, {
      layer: "mode",
      rule: verdict.rule,
    }),
    decision: { verdict: "deny", layer: "mode", rule: verdict.rule, reason: verdict.reason },
  };
}

/**
 * Stages 2 and 3 together: whether a session in `mode` under `layers` may call the tool at all,
 * before its arguments are known. `Session.visibility()` is exactly this, so `pablo tools
 * --explain` and a call agree.
 */
export function admitStage(
  mode: OperatingMode,
  layers: readonly AuthorityLayer[],
  entry: CatalogEntry,
): StageOutcome<CatalogEntry> {
  const moded = modeStage(mode, entry);
  if ("final" in moded) return moded;
  return authorityStage(layers, staticAccesses(entry), entry);
}

/** The accesses a tool implies before its arguments are known: its name, effects and scope. */
export function staticAccesses(entry: CatalogEntry): Access[] {
  return [
    { dimension: "tool", value: entry.name },
    ...entry.definition.effects.map((effect): Access => ({ dimension: "effect", value: effect })),
    ...(entry.definition.scope ?? []),
  ];
}

/** Stage 3 and 6: authority layers over a set of accesses. */
export function authorityStage<T>(
  layers: readonly AuthorityLayer[],
  accesses: readonly Access[],
  next: T,
): StageOutcome<T> {
  const decision = evaluateAuthority(layers, accesses);
  if (decision.verdict === "allow") return { next, decision };
  return {
    final: fail(ErrorCode.TOOL_DENIED, `denied by ${decision.layer}/${decision.rule}: ${decision.reason}`, {
      layer: decision.layer,
      rule: decision.rule,
    }),
    decision,
  };
}

/** Stage 4: the argument text is within its byte bound, parses, and satisfies the closed schema. */
export function argumentsStage(entry: CatalogEntry, raw: unknown, maxBytes: number): StageOutcome<JsonValue> {
  let text: string;
  if (typeof raw === "string") {
    // Measured before parsing: an oversized text is never parsed.
    if (raw.length > maxBytes || utf8ByteLength(raw) > maxBytes) return tooLarge(maxBytes);
    text = raw;
  } else {
    text = JSON.stringify(raw ?? {}) ?? "";
    if (utf8ByteLength(text) > maxBytes) return tooLarge(maxBytes);
  }
  let args: JsonValue;
  try {
    // Parsed from JSON text, so a JSON value whatever the tool's schema says.
    args = JSON.parse(text === "" ? "{}" : text);
  } catch (error) {
    return invalid(
      `arguments are not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      [],
    );
  }
  if (!entry.validator.check(args)) {
    const issues = entry.validator.issues(args);
    const summary = issues.map((i) => `${i.path} ${i.message}`).join("; ");
    return invalid(`arguments do not match the schema of ${entry.providerName}: ${summary}`, issues);
  }
  return { next: args };
}

/**
 * Stage 5: the tool declares what the call will touch, or refuses. Planning code that throws is
 * `TOOL_FAILED` (a containment violation propagates); a malformed plan `TOOL_CONTRACT_VIOLATION`.
 */
export async function planStage(
  entry: CatalogEntry,
  args: JsonValue,
  ctx: ToolContext,
): Promise<StageOutcome<readonly Access[]>> {
  const plan = entry.definition.accesses;
  if (!plan) return { next: [] };
  let planned: unknown;
  try {
    planned = await plan.call(entry.definition, args, ctx);
  } catch (error) {
    if (error instanceof PabloError && error.code === HostErrorCode.CONTAINMENT_VIOLATION) throw error;
    return {
      final: fail(
        ErrorCode.TOOL_FAILED,
        `planning failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
      decision: {
        verdict: "deny",
        layer: "tool",
        rule: "plan.failed",
        reason: "the tool could not plan the call",
      },
    };
  }
  if (Array.isArray(planned)) {
    // `every`, not `find(...) === undefined`: an `undefined` element is malformed too.
    if (planned.every(isWellFormedAccess)) return { next: planned };
    return {
      final: fail(ErrorCode.TOOL_CONTRACT_VIOLATION, `${entry.providerName} declared a malformed access`),
      decision: { verdict: "deny", layer: "tool", rule: "plan.malformed-access", reason: "malformed access" },
    };
  }
  if (!isFailure(planned)) {
    return {
      final: fail(
        ErrorCode.TOOL_CONTRACT_VIOLATION,
        `${entry.providerName} planned neither accesses nor a failure`,
      ),
      decision: { verdict: "deny", layer: "tool", rule: "plan.malformed", reason: "malformed plan" },
    };
  }
  // A tool that refuses while planning may name the layer and rule of its own options
  // (`shell.compound`); otherwise the decision cites the tool and the error code.
  const details = planned.error.details ?? {};
  const layer = typeof details["layer"] === "string" ? details["layer"] : "tool";
  const rule = typeof details["rule"] === "string" ? details["rule"] : String(planned.error.code);
  return { final: planned, decision: { verdict: "deny", layer, rule, reason: planned.error.message } };
}

function tooLarge(maxBytes: number): StageOutcome<never> {
  return {
    final: fail(ErrorCode.ARGUMENTS_TOO_LARGE, `arguments exceed ${maxBytes} bytes`, {
      limitBytes: maxBytes,
    }),
    decision: {
      verdict: "deny",
      layer: "limits",
      rule: "limits.tool-arguments",
      reason: "arguments too large",
    },
  };
}

function invalid(message: string, issues: readonly { path: string; message: string }[]): StageOutcome<never> {
  return {
    final: fail(ErrorCode.INVALID_ARGUMENT, message, issues.length > 0 ? { issues } : undefined),
    decision: { verdict: "deny", layer: "schema", rule: "schema.invalid", reason: "invalid arguments" },
  };
}

const NAME_DIMENSIONS = new Set(["tool", "effect", "mcp.server", "mcp.tool", "credential", "skill", "child"]);
const PATH_DIMENSIONS = new Set(["fs.read", "fs.write", "executable", "mcp.launcher"]);

/** Accesses come from tool code; a malformed one must be a refusal, never a crash in evaluation. */
function isWellFormedAccess(value: unknown): value is Access {
  if (value === null || typeof value !== "object") return false;
  const access = value as Record<string, unknown>;
  const dimension = access["dimension"];
  if (typeof dimension !== "string") return false;
  if (NAME_DIMENSIONS.has(dimension)) return typeof access["value"] === "string";
  if (PATH_DIMENSIONS.has(dimension)) {
    const root = access["root"];
    return (
      typeof access["path"] === "string" &&
      (root === undefined || root === "workspace" || root === "scratch" || root === "external")
    );
  }
  if (dimension === "net") return typeof access["url"] === "string";
  if (dimension === "command") {
    if (typeof access["unproven"] === "string") return true;
    const argv = access["argv"];
    return (
      typeof access["executable"] === "string" &&
      Array.isArray(argv) &&
      argv.every((a) => typeof a === "string")
    );
  }
  return false;
}

function isFailure(value: unknown): value is ToolFailure {
  if (value === null || typeof value !== "object") return false;
  const failure = value as { ok?: unknown; error?: { code?: unknown; message?: unknown } };
  return (
    failure.ok === false &&
    typeof failure.error?.code === "string" &&
    typeof failure.error.message === "string"
  );
}
