/**
 * The actions package's error register: every code it emits, each with one meaning forever.
 * Catalog diagnostics and tool results use these besides the kernel's shared codes.
 * `errors.test.ts` fails on a code literal in the package's sources that is not registered here.
 */
export const ActionsErrorCode = {
  /** A catalog file could not be read or parsed as YAML (aliases past the bound included). */
  CATALOG_UNREADABLE: "CATALOG_UNREADABLE",
  /** An action in a catalog does not match the catalog schema or breaks a rule of the format. */
  ACTION_INVALID: "ACTION_INVALID",
  /** An action carries no signature. */
  ACTION_UNSIGNED: "ACTION_UNSIGNED",
  /** An action's signature does not verify (tampered content, script bytes or digest). */
  SIGNATURE_INVALID: "SIGNATURE_INVALID",
  /** An action is signed by a key that is not among the trusted keys. */
  SIGNATURE_UNTRUSTED_KEY: "SIGNATURE_UNTRUSTED_KEY",
  /** Two actions share a name. */
  ACTION_DUPLICATE: "ACTION_DUPLICATE",
  /** An interpreter, shebang script or non-ELF program without `allow_interpreter: true`. */
  INTERPRETER_REFUSED: "INTERPRETER_REFUSED",
  /** `allow_interpreter: true` is set: a warning, the action still loads. */
  INTERPRETER_ALLOWED: "INTERPRETER_ALLOWED",
  /** Neither the executable nor any of its fallbacks exists on this host. */
  EXECUTABLE_MISSING: "EXECUTABLE_MISSING",
  /** A builtin's server could not be reached, or its credentials file is unusable. */
  BUILTIN_UNAVAILABLE: "BUILTIN_UNAVAILABLE",
  /** A statement or command a read-only builtin refuses (a write, a second statement, ...). */
  QUERY_REFUSED: "QUERY_REFUSED",
  /** A builtin's server answered with an error. */
  QUERY_FAILED: "QUERY_FAILED",
  /** A URL outside the action's signed prefixes. */
  URL_REFUSED: "URL_REFUSED",
  /** A credentials file that is not a regular file of mode 0600 owned by the host user. */
  CREDENTIALS_UNSAFE: "CREDENTIALS_UNSAFE",
} as const;

export type ActionsErrorCode = (typeof ActionsErrorCode)[keyof typeof ActionsErrorCode];

declare module "@pablo/kernel" {
  interface ErrorCodeRegistry extends Record<ActionsErrorCode, true> {}
}
