import { ErrorCode } from "./errors.js";
import type { OperatingMode, ToolCategory } from "./tool.js";

/** The operating-mode gate's verdict: continue to authority and permission, or a hard deny. */
export type ModeVerdict =
  | { readonly verdict: "continue" }
  | { readonly verdict: "deny"; readonly code: string; readonly rule: string; readonly reason: string };

const CONTINUE: ModeVerdict = { verdict: "continue" };

/**
 * The matrix of seed 001 section 10, checked before any permission prompt. Plan and Goal
 * hard-deny writes, plugin tools and every tool the matrix does not name; no permission mode or
 * session grant reaches past this gate, and a direct host call goes through it too.
 */
export function modeGate(mode: OperatingMode, category: ToolCategory): ModeVerdict {
  switch (category) {
    case "read":
    case "preview":
    case "control":
    case "process":
      return CONTINUE;
    case "write":
    case "external":
    case "agent-control":
      return mode === "agent" ? CONTINUE : deny(mode, category);
    case "plugin":
      return mode === "agent"
        ? CONTINUE
        : {
            verdict: "deny",
            code: ErrorCode.PLUGIN_DISABLED_IN_PLAN,
            rule: `mode.${mode}.plugin`,
            reason: `plugin tools are disabled in ${mode} mode`,
          };
    case "plan-submit":
      return mode === "plan" ? CONTINUE : deny(mode, category);
    case "goal-submit":
      return mode === "goal" ? CONTINUE : deny(mode, category);
    default:
      return deny(mode, category);
  }
}

function deny(mode: OperatingMode, category: string): ModeVerdict {
  return {
    verdict: "deny",
    code: ErrorCode.DISABLED_IN_MODE,
    rule: `mode.${mode}.${category}`,
    reason: `${category} tools are not available in ${mode} mode`,
  };
}
