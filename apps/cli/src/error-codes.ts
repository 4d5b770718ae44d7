/**
 * The codes the `pablo` command itself prints as `[CODE]` at the end of an error line, or gives a
 * catalog diagnostic, each with its one meaning. Codes of the packages (`CONFIG_*`, `MODEL_SPEC`,
 * `SUBAGENT_TOOL_DROPPED`, `INVALID_OPTIONS`, ...) stay in their packages' registers and are
 * printed as they are. `error-register.test.ts` fails on a code literal no register holds.
 */
export const CliErrorCode = {
  /** The command line cannot be used: an unknown command or flag, a missing or conflicting value. Exit 2. */
  USAGE: "USAGE",
  /** Opening the task's providers failed for a reason without a code of its own. Exit 2. */
  ADMISSION_FAILED: "ADMISSION_FAILED",
  /** The state directory (scratch, review snapshots) would lie inside the workspace. Exit 2. */
  STORAGE_INSIDE_WORKSPACE: "STORAGE_INSIDE_WORKSPACE",
  /** `pablo skills` was run with no `[options.skills.roots]` configured. Exit 2. */
  SKILLS_NOT_CONFIGURED: "SKILLS_NOT_CONFIGURED",
  /** A skill named in `[options.skills] activate` could not be activated at admission. Exit 2. */
  SKILL_ACTIVATION_FAILED: "SKILL_ACTIVATION_FAILED",
  /** BrowserPreview is not attached (no browser found, or turned off); informational diagnostic. */
  BROWSER_UNAVAILABLE: "BROWSER_UNAVAILABLE",
  /** A fault without a usable code of its own reached the top of the command. Exit 1. */
  INTERNAL_ERROR: "INTERNAL_ERROR",
  /** `pablo actions` was run with neither catalogs and trusted keys named nor `[options.actions]`. */
  ACTIONS_NOT_CONFIGURED: "ACTIONS_NOT_CONFIGURED",
  /** `pablo actions keygen` would overwrite an existing key file; it never does. */
  KEY_EXISTS: "KEY_EXISTS",
  /** `pablo actions sign` could not sign the catalog. */
  SIGN_FAILED: "SIGN_FAILED",
  /** A trusted action-catalog key cannot be read or used. */
  INVALID_KEY: "INVALID_KEY",
} as const;

export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];
