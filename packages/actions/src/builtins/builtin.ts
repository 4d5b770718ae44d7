import type { Access, Effect, JsonValue, ToolCategory, ToolFailure } from "@pablo/kernel";
import type { TObject } from "typebox";

/** What a builtin returns on success: structured data, and the text filters and redaction read. */
export interface BuiltinSuccess {
  readonly ok: true;
  /** Structured fields of the result (string values are redacted before the model sees them). */
  readonly data: Readonly<Record<string, JsonValue>>;
  /** The builtin's main text output (log lines, a response body), when it has one. */
  readonly text?: string;
  /** True when the handler stopped at a scan bound (files, bytes, rows). */
  readonly scanLimited?: boolean;
}

export type BuiltinOutcome = BuiltinSuccess | ToolFailure;

export interface BuiltinRunContext {
  readonly signal: AbortSignal;
  /** performance.now() after which the call must be over. */
  readonly deadline: number;
}

/**
 * A builtin handler: its configuration (signed in the catalog, able only to narrow the handler's
 * own limits and allow-lists), the parameters a call gives, and how it runs.
 */
export interface BuiltinHandler<C = unknown> {
  readonly name: string;
  readonly summary: string;
  readonly effects: readonly Effect[];
  readonly category: ToolCategory;
  /** The closed schema of the call's `params`. */
  readonly paramsSchema: TObject;
  /** Validates a catalog's `builtin_config` against the handler's limits; never widens them. */
  resolveConfig(
    raw: unknown,
  ): { readonly ok: true; readonly config: C } | { readonly ok: false; readonly problem: string };
  /** What a call will touch, declared before it runs. */
  accesses(config: C, params: Readonly<Record<string, unknown>>): readonly Access[] | ToolFailure;
  run(
    config: C,
    params: Readonly<Record<string, unknown>>,
    context: BuiltinRunContext,
  ): Promise<BuiltinOutcome>;
  /** Why the handler cannot work on this host (server unreachable, credentials unusable), or undefined. */
  check(config: C): Promise<string | undefined>;
}
