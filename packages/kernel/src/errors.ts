/**
 * The kernel's error register: every code the kernel emits or defines for the framework, each with
 * its one meaning. A code names one meaning forever: add codes, never reuse one for another
 * meaning. Codes are what a model, a host and a test may branch on; messages are for people.
 * `errors.test.ts` fails on a code literal in the kernel's sources that is not registered here.
 *
 * Result codes shared by the framework (tools in other packages return them too).
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

/** The result codes the kernel registers. */
export type KernelErrorCode = ErrorCode;

/**
 * Every registered result code, as the keys of one interface. A package registers its own codes
 * by declaration merging, next to its own register:
 *
 * ```ts
 * export const FsErrorCode = { STALE_READ: "STALE_READ" } as const;
 * declare module "@pablo/kernel" {
 *   interface ErrorCodeRegistry extends Record<(typeof FsErrorCode)[keyof typeof FsErrorCode], true> {}
 * }
 * ```
 */
export interface ErrorCodeRegistry extends Record<KernelErrorCode, true> {}

/** A code some package registered in {@link ErrorCodeRegistry}. */
export type RegisteredErrorCode = keyof ErrorCodeRegistry;

/**
 * The type of `ToolErrorInfo["code"]`. `(string & {})` keeps codes that no package has registered
 * yet compiling (editors still complete the registered ones); it goes once every package registers.
 */
export type ToolErrorCode = RegisteredErrorCode | (string & {});

/** What a model receives when a call fails: a stable code, a message, optional details. */
export interface ToolErrorInfo {
  readonly code: ToolErrorCode;
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

/**
 * Host-fault codes thrown as {@link PabloError}, or reported as catalog diagnostics by
 * `CatalogBuilder.tryAdd` and `addProviders`.
 */
export const HostErrorCode = {
  /** A tool definition lacks `execute`, has an invalid risk, or its schema does not compile. */
  INVALID_TOOL_DEFINITION: "INVALID_TOOL_DEFINITION",
  /** An input schema is not an object schema or has an object without `additionalProperties: false`. */
  OPEN_SCHEMA: "OPEN_SCHEMA",
  /** Two tools share a native name, or their provider names collide. */
  NAME_COLLISION: "NAME_COLLISION",
  /** A native or provider name is not of the allowed shape. */
  INVALID_NAME: "INVALID_NAME",
  /** A tool was added to a catalog after `build()` froze it. */
  CATALOG_FROZEN: "CATALOG_FROZEN",
  /** An authority layer failed validation (schema, duplicate rule ID, path or URL). */
  INVALID_POLICY: "INVALID_POLICY",
  /** A path escape reached execution; the only fault that propagates out of `Session.call`. */
  CONTAINMENT_VIOLATION: "CONTAINMENT_VIOLATION",
  /** A tool provider's `tools()` threw; reported as a catalog diagnostic, never thrown. */
  PROVIDER_FAILED: "PROVIDER_FAILED",
  /**
   * A configuration section that `resolveSection` refuses reached an API that cannot return a
   * result (a tool factory): the host skipped validating it. One code for every package's section.
   */
  INVALID_OPTIONS: "INVALID_OPTIONS",
} as const;

export type HostErrorCode = (typeof HostErrorCode)[keyof typeof HostErrorCode];

/** Codes of a refused `CredentialResolution`, defined here for every resolver to use. */
export const CredentialErrorCode = {
  /** No credential has that name. */
  CREDENTIAL_NOT_FOUND: "CREDENTIAL_NOT_FOUND",
  /** The credential exists but is not configured for this consumer and destination. */
  CREDENTIAL_SCOPE: "CREDENTIAL_SCOPE",
  /** The credential's source (an environment variable, a file) has no value. */
  CREDENTIAL_UNAVAILABLE: "CREDENTIAL_UNAVAILABLE",
} as const;

export type CredentialErrorCode = (typeof CredentialErrorCode)[keyof typeof CredentialErrorCode];

/**
 * Codes of the audit log: a broken chain, reported by `verifyChain` and `pablo audit verify` (each
 * names what happened to the first record that does not verify), and a log that cannot be written.
 */
export const AuditErrorCode = {
  /** A record's content no longer matches its hash, or it was rewritten with a new hash. */
  AUDIT_RECORD_CHANGED: "AUDIT_RECORD_CHANGED",
  /** One or more records are missing before the named one. */
  AUDIT_RECORD_REMOVED: "AUDIT_RECORD_REMOVED",
  /** The named record is stored out of its chain order. */
  AUDIT_RECORD_REORDERED: "AUDIT_RECORD_REORDERED",
  /** The named record is not part of the chain: it was added afterwards. */
  AUDIT_RECORD_INSERTED: "AUDIT_RECORD_INSERTED",
  /** Records cannot be written where the store was told to keep them, or some were not. */
  AUDIT_WRITE_FAILED: "AUDIT_WRITE_FAILED",
} as const;

export type AuditErrorCode = (typeof AuditErrorCode)[keyof typeof AuditErrorCode];
