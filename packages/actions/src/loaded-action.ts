import type { Redactor } from "@pablo/shell/redact";
import type { BuiltinHandler } from "./builtins/builtin.js";
import type { ActionSpec, ArgTemplate, FilterName } from "./catalog-schema.js";

/** Defaults and ceilings of an action's limits. */
export const ACTION_LIMITS = {
  timeoutMs: { default: 30_000, max: 15 * 60_000 },
  maxOutputBytes: { default: 64 * 1024, max: 8 * 1024 * 1024 },
  maxScanBytes: { default: 1024 * 1024, max: 64 * 1024 * 1024 },
} as const;

/** One named exec array of an action (a plain `exec` action has one, named `main`). */
export interface ActionStep {
  readonly name: string;
  readonly exec: readonly ArgTemplate[];
  /** Tried in order only when the primary executable does not exist. */
  readonly fallbacks: readonly string[];
}

/** A signed script, read and digest-checked at load. */
export interface ActionScript {
  readonly file: string;
  readonly bytes: Buffer;
  readonly interpreter: string;
  readonly args: readonly ArgTemplate[];
}

/** An action whose signature verified, with its limits resolved. */
export interface LoadedAction {
  readonly name: string;
  readonly spec: ActionSpec;
  /** The catalog file it came from. */
  readonly source: string;
  /** The trusted key that signed it. */
  readonly keyId: string;
  readonly steps: readonly ActionStep[];
  readonly script?: ActionScript;
  readonly builtin?: { readonly handler: BuiltinHandler; readonly config: unknown };
  readonly onError: "continue" | "stop";
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly maxScanBytes: number;
  readonly filters: readonly FilterName[];
  readonly redact: Redactor;
  /** Load-time warnings (`allow_interpreter`). */
  readonly warnings: readonly string[];
}
