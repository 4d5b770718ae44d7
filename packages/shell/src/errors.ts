/**
 * Codes of the host faults this package throws as `PabloError` while resolving `[options.shell]` and `[options.sandbox]`.
 * Results a model receives use the kernel's `ErrorCode` register instead.
 */
export const ShellOptionsErrorCode = {
  /** A value the options schema or its cross-field checks refuse. */
  INVALID_OPTIONS: "INVALID_OPTIONS",
  /** `shell` names no shell ID this platform supports (seed 001 §5). */
  COMMAND_SHELL_INVALID: "COMMAND_SHELL_INVALID",
  /** `[options.sandbox]` asks for a sandbox this host cannot make (bubblewrap missing or refused). */
  SANDBOX_UNAVAILABLE: "SANDBOX_UNAVAILABLE",
} as const;

export type ShellOptionsErrorCode = (typeof ShellOptionsErrorCode)[keyof typeof ShellOptionsErrorCode];
