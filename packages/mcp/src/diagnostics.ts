import { PabloError } from "@pablo/kernel";

/**
 * Why a server or a tool is not (or no longer) in the catalog. `pablo tools --explain` prints
 * these. Messages never contain credential values.
 */
export interface McpDiagnostic {
  readonly server: string;
  readonly tool?: string;
  readonly code: McpDiagnosticCode;
  readonly message: string;
}

export const McpDiagnosticCode = {
  /** The server entry failed validation (relative launcher, http URL without the loopback opt-in...). */
  SERVER_CONFIG: "MCP_SERVER_CONFIG",
  /** A credential named by `env` or `headers` did not resolve for this server. */
  CREDENTIAL: "MCP_CREDENTIAL",
  /**
   * An `auth = "oauth"` server has no usable token (none stored, or expired for good): it was not
   * started. The message names `pablo mcp login NAME`.
   */
  AUTH_REQUIRED: "MCP_AUTH_REQUIRED",
  /** Authority layers deny the server or its launcher; it was not started. */
  SERVER_DENIED: "MCP_SERVER_DENIED",
  /** The server did not start, initialize or list its tools within `startup_timeout_ms`. */
  SERVER_FAILED: "MCP_SERVER_FAILED",
  /** The server exited or disconnected during the task. */
  SERVER_EXITED: "MCP_SERVER_EXITED",
  /** A tool's input or output schema is outside the supported subset; the tool is left out. */
  SCHEMA_UNSUPPORTED: "MCP_SCHEMA_UNSUPPORTED",
  /** A tool name cannot form a native name, needs task-based execution, or is over the tool cap. */
  TOOL_UNSUPPORTED: "MCP_TOOL_UNSUPPORTED",
  /** Two tools map to one provider name; both are left out. */
  NAME_COLLISION: "MCP_NAME_COLLISION",
  /** A tool's definition changed (or it disappeared) after admission; it is disabled. */
  DEFINITION_CHANGED: "MCP_DEFINITION_CHANGED",
  /** A tool appeared after admission; the task's catalog is frozen, so it is not offered. */
  TOOL_ADDED: "MCP_TOOL_ADDED",
  /** The server's processes could not be proven ended after close. */
  CLEANUP_FAILED: "MCP_CLEANUP_FAILED",
} as const;

export type McpDiagnosticCode = (typeof McpDiagnosticCode)[keyof typeof McpDiagnosticCode];

/** Result codes MCP tools add to the kernel's. */
export const McpErrorCode = {
  /** The connection ended during the call; whether the server completed it is unknown. */
  SERVER_DISCONNECTED: "MCP_SERVER_DISCONNECTED",
  /** The server exited or disconnected earlier in the task; the call was not sent. */
  SERVER_UNAVAILABLE: "MCP_SERVER_UNAVAILABLE",
  /** The tool's definition changed after admission, so it is disabled for the rest of the task. */
  TOOL_CHANGED: "MCP_TOOL_CHANGED",
} as const;

/** Admission failure codes carried by {@link McpAdmissionError}. */
export const McpAdmissionCode = {
  INVALID_CONFIG: "MCP_INVALID_CONFIG",
  REQUIRED_SERVER_FAILED: "MCP_REQUIRED_SERVER_FAILED",
  CANCELLED: "MCP_ADMISSION_CANCELLED",
} as const;

export type McpAdmissionCode = (typeof McpAdmissionCode)[keyof typeof McpAdmissionCode];

/**
 * The task cannot be admitted: the configuration is invalid, a `required` server failed to
 * start, or admission was cancelled. Every server already started has been closed when this is
 * thrown. A CLI prints `message` and exits 2 (130 for `MCP_ADMISSION_CANCELLED`).
 */
export class McpAdmissionError extends PabloError {
  override readonly code: McpAdmissionCode;
  readonly diagnostics: readonly McpDiagnostic[];

  constructor(code: McpAdmissionCode, message: string, diagnostics: readonly McpDiagnostic[]) {
    super(code, message, { diagnostics });
    this.name = "McpAdmissionError";
    this.code = code;
    this.diagnostics = diagnostics;
  }
}
