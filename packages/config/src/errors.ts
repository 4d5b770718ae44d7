/** Stable codes of configuration errors. The CLI exits 2 on any of them. */
export const ConfigErrorCode = {
  READ_FAILED: "CONFIG_READ_FAILED",
  SYNTAX: "CONFIG_SYNTAX",
  UNKNOWN_KEY: "CONFIG_UNKNOWN_KEY",
  INVALID_VALUE: "CONFIG_INVALID_VALUE",
  MISSING_BINDING: "CONFIG_MISSING_BINDING",
  INVALID_BINDING: "CONFIG_INVALID_BINDING",
  CREDENTIAL: "CONFIG_CREDENTIAL",
  POLICY: "CONFIG_POLICY",
} as const;

export type ConfigErrorCode = (typeof ConfigErrorCode)[keyof typeof ConfigErrorCode];

/** One problem in a configuration file, addressed by file, line and key path. */
export interface ConfigError {
  readonly code: ConfigErrorCode;
  readonly file: string;
  /** 1-based line, or 0 when the problem has no single line (a missing section). */
  readonly line: number;
  /** Dotted key path, for example `options.mcp.servers.records.command`. */
  readonly keyPath: string;
  readonly message: string;
}

/** `file:line: key: message`, the form editors and terminals link. */
export function formatConfigError(error: ConfigError): string {
  const where = error.line > 0 ? `${error.file}:${error.line}` : error.file;
  return `${where}: ${error.keyPath ? `${error.keyPath}: ` : ""}${error.message} [${error.code}]`;
}

export type ConfigResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly errors: readonly ConfigError[] };
