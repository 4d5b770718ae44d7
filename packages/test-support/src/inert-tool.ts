import Type, { type TObject } from "typebox";

/** A tool definition that does nothing, shaped like the kernel's `AnyToolDefinition`. */
export interface InertTool {
  readonly name: string;
  readonly description: string;
  readonly summary: string;
  readonly inputSchema: TObject;
  readonly risk: "low";
  readonly effects: readonly string[];
  readonly category: "read";
  readonly mutates: false;
  execute(): Promise<{ readonly ok: true; readonly data: string | null }>;
}

/**
 * A low-risk, non-mutating read tool with a closed empty input schema, named `name`, declaring
 * `effects`, whose call succeeds with `data`: what tests of layers, policy checks and grants put in
 * a catalog when only a tool's name and effects matter. It is a plain object (this package does
 * not import the kernel, so that the kernel may use this package without a cycle); it type-checks
 * wherever a kernel tool definition is expected.
 */
export function inertTool(
  name: string,
  { effects = [], data = null }: { effects?: readonly string[]; data?: string | null } = {},
): InertTool {
  return {
    name,
    description: name,
    summary: name,
    inputSchema: Type.Object({}, { additionalProperties: false }),
    risk: "low",
    effects,
    category: "read",
    mutates: false,
    execute: async () => ({ ok: true, data }),
  };
}
