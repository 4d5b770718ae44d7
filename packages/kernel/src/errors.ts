/**
 * Stable error codes. A code names one meaning forever: add codes, never reuse one for another
 * meaning. Codes are what a model, a host and a test may branch on; messages are for people.
 */
export const ErrorCode = {
  /** Arguments failed the closed schema, or a value is out of range. */
  INVALID_ARGUMENT: "INVALID_ARGUMENT",
  /** The name resolves to no tool in this task's frozen catalog. */
  UNKNOWN_TOOL: "UNKNOWN_TOOL",
  /** Authority layers, the operating mode or a permission answer refused the call. */
  TOOL_DENIED: "TOOL_DENIED",
  /** The tool ran and reported failure (for example a non-zero exit status). */
  TOOL_FAILED: "TOOL_FAILED",
  /** The tool's deadline passed before it finished. */
  TOOL_TIMEOUT: "TOOL_TIMEOUT",
  /** The call was cancelled through its signal. */
  TOOL_CANCELLED: "TOOL_CANCELLED",
  /** The tool's processes or resources could not be proven released. */
  TOOL_CLEANUP_FAILED: "TOOL_CLEANUP_FAILED",
  /** The named thing does not exist. */
  NOT_FOUND: "NOT_FOUND",
  /** A path or object already exists where the call required it to be absent. */
  ALREADY_EXISTS: "ALREADY_EXISTS",
  /** The revision precondition of a mutation did not hold. */
  REVISION_CONFLICT: "REVISION_CONFLICT",
  /** A path resolves outside every root the call may use. */
  OUTSIDE_WORKSPACE: "OUTSIDE_WORKSPACE",
  /** A path crosses a symbolic link where links are refused. */
  SYMLINK_REFUSED: "SYMLINK_REFUSED",
  /** A path names something other than the regular file or directory the tool needs. */
  SPECIAL_FILE: "SPECIAL_FILE",
  /** File content is not valid UTF-8 text. */
  INVALID_UTF8: "INVALID_UTF8",
  /** A size, count, depth or time limit was reached. */
  LIMIT_EXCEEDED: "LIMIT_EXCEEDED",
  /** A budget shared by the task (model calls, tool calls, events, deadline) is spent. */
  BUDGET_EXHAUSTED: "BUDGET_EXHAUSTED",
  /** The result carries content of a kind this tool does not pass on (image, audio, resource). */
  UNSUPPORTED_CONTENT: "UNSUPPORTED_CONTENT",
  /** A plugin tool was called in Plan or Goal mode. Shared by both contract modes. */
  PLUGIN_DISABLED_IN_PLAN: "PLUGIN_DISABLED_IN_PLAN",
  /** The operating mode hard-denies this kind of tool. */
  DISABLED_IN_MODE: "DISABLED_IN_MODE",
  /** No shell is available at the pinned shell ID. */
  SHELL_NOT_FOUND: "SHELL_NOT_FOUND",
  /** The pinned shell changed between the turn and the spawn. */
  COMMAND_SHELL_CHANGED: "COMMAND_SHELL_CHANGED",
  /** The arguments' JSON text exceeds the argument limit. */
  ARGUMENTS_TOO_LARGE: "ARGUMENTS_TOO_LARGE",
  /** The tool broke its own contract (threw, returned a malformed result). */
  TOOL_CONTRACT_VIOLATION: "TOOL_CONTRACT_VIOLATION",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** What a model receives when a call fails: a stable code, a message, optional details. */
export interface ToolErrorInfo {
  readonly code: ErrorCode | (string & {});
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
  /** The agent loop should stop after reporting this result (seed 001, 4d). */
  readonly terminate?: boolean;
}

/**
 * Host and programmer faults: a broken invariant, a tool definition that cannot be registered, a
 * path escape attempt that reached execution. These throw; everything a model can act on is a
 * result instead.
 */
export class PabloError extends Error {
  readonly code: string;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: string, message: string, details?: Readonly<Record<string, unknown>>) {
    super(message);
    this.name = "PabloError";
    this.code = code;
    this.details = details;
  }
}

/** Host-fault codes thrown as {@link PabloError}. */
export const HostErrorCode = {
  INVALID_TOOL_DEFINITION: "INVALID_TOOL_DEFINITION",
  OPEN_SCHEMA: "OPEN_SCHEMA",
  NAME_COLLISION: "NAME_COLLISION",
  INVALID_NAME: "INVALID_NAME",
  CATALOG_FROZEN: "CATALOG_FROZEN",
  INVALID_POLICY: "INVALID_POLICY",
  CONTAINMENT_VIOLATION: "CONTAINMENT_VIOLATION",
} as const;

export type HostErrorCode = (typeof HostErrorCode)[keyof typeof HostErrorCode];
