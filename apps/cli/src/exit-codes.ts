import type { ToolResult } from "@pablo/kernel";

/** Exit codes of the CLI contract. */
export const Exit = { OK: 0, FAILED: 1, USAGE: 2, DENIED: 3, CANCELLED: 130 } as const;

const DENIAL_CODES = new Set(["TOOL_DENIED", "DISABLED_IN_MODE", "PLUGIN_DISABLED_IN_PLAN"]);
const USAGE_CODES = new Set(["UNKNOWN_TOOL", "INVALID_ARGUMENT", "ARGUMENTS_TOO_LARGE"]);

/** The exit code for a tool result: 0 ok, 3 denied, 130 cancelled, 2 bad call, 1 any other failure. */
export function exitCodeFor(result: ToolResult): number {
  if (result.ok) return Exit.OK;
  const code = String(result.error.code);
  if (DENIAL_CODES.has(code)) return Exit.DENIED;
  if (code === "TOOL_CANCELLED") return Exit.CANCELLED;
  if (USAGE_CODES.has(code)) return Exit.USAGE;
  return Exit.FAILED;
}
