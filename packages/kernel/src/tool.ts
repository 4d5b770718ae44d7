import type { Static, TSchema } from "typebox";
import type { Access } from "./access.js";
import type { Decision } from "./authority.js";
import type { ToolErrorInfo } from "./errors.js";
import type { JsonValue } from "./json.js";
import type { AuthorityLayer } from "./policy-schema.js";

/** How much a call can hurt when it goes wrong; drives the permission mode's decision. */
export type Risk = "low" | "medium" | "high";

/**
 * What a tool may exercise. Policy and the read-only profile read effects, never tool names.
 * Packages may add their own effect strings; these are the ones the kernel knows.
 */
export type Effect =
  | "fs.read"
  | "fs.write"
  | "process"
  | "net"
  | "mcp"
  | "a2a"
  | "child"
  | "ui"
  | (string & {});

/**
 * The row of the operating-mode matrix (seed 001, section 10) a tool belongs to.
 * - `read`: Read / Glob / Grep and other inspection; allowed in every mode.
 * - `preview`: BrowserPreview-like UI inspection; allowed in every mode.
 * - `control`: new_context, ToolSearch, asktool; allowed in every mode, never mutates.
 * - `write`: Write / Edit; hard-denied in Plan and Goal.
 * - `process`: Bash-like execution; permission policy in every mode.
 * - `plugin`: third-party plugin tools; Agent only (`PLUGIN_DISABLED_IN_PLAN` elsewhere).
 * - `external`: MCP, network, A2A, children and anything else; Agent only.
 * - `agent-control`: EnterPlanMode, EnterGoalMode, Task; Agent only.
 * - `plan-submit` / `goal-submit`: SubmitPlan / SubmitGoal; only in their own mode.
 */
export type ToolCategory =
  | "read"
  | "preview"
  | "control"
  | "write"
  | "process"
  | "plugin"
  | "external"
  | "agent-control"
  | "plan-submit"
  | "goal-submit";

export type OperatingMode = "agent" | "plan" | "goal";

/** A successful result. `data` is what the model reads. */
export interface ToolSuccess {
  readonly ok: true;
  readonly data: JsonValue;
  /** The tool's change is installed; cancellation after this point cannot undo it. */
  readonly committed?: boolean;
  /** Set by the kernel when the serialized result had to be cut to its byte bound. */
  readonly truncated?: TruncationInfo;
  /** Facts for the audit record only (a skill's hash, the tools a search loaded); the model never sees them. */
  readonly auditNotes?: AuditNotes;
}

/** Audit-only facts a tool may attach to a result. Never content. */
export type AuditNotes = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** A failed result: recoverable information for the model, never an exception. */
export interface ToolFailure {
  readonly ok: false;
  readonly error: ToolErrorInfo;
  readonly committed?: boolean;
  readonly truncated?: TruncationInfo;
  readonly auditNotes?: AuditNotes;
}

export type ToolResult = ToolSuccess | ToolFailure;

export interface TruncationInfo {
  readonly originalBytes: number;
  readonly limitBytes: number;
}

/** A progress event a running tool streams to the host (shell output, MCP progress, ...). */
export interface ToolProgress {
  readonly kind: string;
  readonly data: JsonValue;
}

declare const stateType: unique symbol;

/** A session-state key that carries the type of what it holds; made by {@link stateKey}. */
export type StateKey<T> = string & { readonly [stateType]?: T };

/** Names a session-state key and its type once: `const REVISIONS = stateKey<Map<string, string>>("fs.revisions")`. */
export function stateKey<T>(name: string): StateKey<T> {
  return name;
}

/**
 * What a tool sees while it plans and runs. Contract: a tool must honour `signal` and settle
 * soon after it aborts; the kernel waits for it (joined cleanup) within a bounded allowance.
 */
export interface ToolContext {
  readonly sessionId: string;
  readonly turnId: string;
  readonly promptId: string;
  readonly callId: string;
  readonly mode: OperatingMode;
  /** Aborts on cancellation, on the run deadline and on the tool's own deadline. */
  readonly signal: AbortSignal;
  /**
   * Runs `listener` once when `signal` aborts (at once if it has), with its reason; returns a
   * function that removes it. The same event without the object: on Node 20, making the call's
   * AbortSignal and listening on it costs more than a no-op dispatch, so a tool on a hot path that
   * only needs to hear of the abort (an MCP call) asks for this instead.
   */
  onAbort(listener: (reason: unknown) => void): () => void;
  /** Epoch milliseconds after which the call is over, whatever the tool's own timeout says. */
  readonly deadline: number;
  /** The name of the delegate or child that made the call, when one did. */
  readonly requester: string | undefined;
  /** Streams a progress event to the host. Dropped, never thrown, past the event budget. */
  progress(event: ToolProgress): void;
  /**
   * Re-evaluates the authority layers for accesses discovered or re-checked during execution
   * (for example just before an atomic rename). No permission prompt is made.
   */
  authorize(accesses: readonly Access[]): Decision;
  /**
   * Per-session storage for a tool package's own state (tracked revisions, failure counts). The
   * first call for a key runs `init`; later calls return what it made. A {@link StateKey} binds a
   * key to its type once, so every use of that key is checked against it.
   */
  state<T>(key: StateKey<T> | string, init: () => T): T;
  /**
   * Adds an innermost authority layer to the calling session for the rest of it (an activated
   * skill's allowed-tools, when a deployment asks for that). Layers intersect: this only narrows.
   */
  narrow(layer: AuthorityLayer): void;
}

/** What every tool declares besides its schema and functions: names, risk, effects, category. */
export interface ToolMetadata {
  /** Native name: `fs.read`, `mcp/records/read_evidence`, `plugin.acme.lint`. */
  readonly name: string;
  /** Name the model sees; derived from `name` when absent. Must match `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly providerName?: string;
  readonly description: string;
  /** One line for the on-demand catalog. */
  readonly summary: string;
  readonly outputSchema?: TSchema;
  readonly risk: Risk;
  readonly effects: readonly Effect[];
  readonly category: ToolCategory;
  readonly mutates: boolean;
  /**
   * Deferred tools are listed only in the on-demand catalog until ToolSearch loads them.
   * `"agent-mode"` defers only in Agent mode: seed 001 2.1's Glob and Grep, loaded on demand in
   * Agent but part of Plan's and Goal's read/inspection core.
   */
  readonly deferred?: boolean | "agent-mode";
  /** Accesses that do not depend on arguments (an MCP tool's server), used to narrow the catalog. */
  readonly scope?: readonly Access[];
}

/**
 * A tool: a native name, a closed input schema, the effects and category policy reads, and the
 * function that runs it. Contract: `execute` returns results for everything a model can act on
 * and throws only for host faults.
 */
export interface ToolDefinition<S extends TSchema = TSchema> extends ToolMetadata {
  /** Closed typebox schema: every object has `additionalProperties: false`. */
  readonly inputSchema: S;
  /**
   * Declares what this call will touch before anything runs: paths, commands, URLs. Policy decides
   * on exactly these. Contract: must not change any state. May refuse with a failure result.
   */
  accesses?(args: Static<S>, ctx: ToolContext): PlannedAccesses | Promise<PlannedAccesses>;
  execute(args: Static<S>, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * A tool with its argument type erased: what catalogs, providers and wrappers hold when they keep
 * tools of many schemas side by side. Every `ToolDefinition<S>` is one without a cast (its
 * methods take `Static<S>` where this takes `unknown`; TypeScript compares methods bivariantly).
 * That is sound only because the kernel calls `accesses` and `execute` with arguments its
 * compiled validator has checked against `inputSchema`; a wrapper that calls them must do the same.
 */
export interface AnyToolDefinition extends ToolMetadata {
  readonly inputSchema: TSchema;
  accesses?(args: unknown, ctx: ToolContext): PlannedAccesses | Promise<PlannedAccesses>;
  execute(args: unknown, ctx: ToolContext): Promise<ToolResult>;
}

/** What planning returns: the accesses a call will make, or a refusal. */
export type PlannedAccesses = readonly Access[] | ToolFailure;

/** Whether a tool is deferred in a mode: listed on demand rather than sent with full schema. */
export function isDeferred(definition: Pick<ToolMetadata, "deferred">, mode: OperatingMode): boolean {
  return definition.deferred === true || (definition.deferred === "agent-mode" && mode === "agent");
}

/** Identity helper that keeps `args` typed from the schema. */
export function defineTool<S extends TSchema>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}

/** Something that contributes tools to a host's catalog: the fs package, an MCP server, a plugin. */
export interface ToolProvider {
  readonly id: string;
  tools(): readonly AnyToolDefinition[] | Promise<readonly AnyToolDefinition[]>;
  /** Releases sessions and processes the provider opened for this task. Contract: must not throw. */
  close?(): Promise<void>;
}

/** Builds a success result. */
export function ok(data: JsonValue, extra?: { committed?: boolean; auditNotes?: AuditNotes }): ToolSuccess {
  return {
    ok: true,
    data,
    ...(extra?.committed ? { committed: true } : {}),
    ...(extra?.auditNotes ? { auditNotes: extra.auditNotes } : {}),
  };
}

/** Builds a failure result. */
export function fail(
  code: ToolErrorInfo["code"],
  message: string,
  details?: Readonly<Record<string, unknown>>,
  extra?: { committed?: boolean; terminate?: boolean },
): ToolFailure {
  const error: ToolErrorInfo = {
    code,
    message,
    ...(details ? { details } : {}),
    ...(extra?.terminate ? { terminate: true } : {}),
  };
  return extra?.committed ? { ok: false, error, committed: true } : { ok: false, error };
}
