import { PabloError } from "@pablo/kernel";

/** Result codes the A2A tools add to the kernel's. Each keeps one meaning. */
export const A2aErrorCode = {
  /** The remote ended in `TASK_STATE_FAILED`, or answered the call with a JSON-RPC error. */
  REMOTE_FAILED: "A2A_REMOTE_FAILED",
  /** The remote refused the task (`TASK_STATE_REJECTED`). */
  REMOTE_REJECTED: "A2A_REMOTE_REJECTED",
  /** The remote paused for input (`TASK_STATE_INPUT_REQUIRED`); one call sends one message. */
  INPUT_REQUIRED: "A2A_INPUT_REQUIRED",
  /** The remote paused for authentication (`TASK_STATE_AUTH_REQUIRED`). */
  AUTH_REQUIRED: "A2A_AUTH_REQUIRED",
  /** The remote cancelled the task on its own (`TASK_STATE_CANCELED`). */
  REMOTE_CANCELED: "A2A_REMOTE_CANCELED",
  /** The task sent more events, or a larger event, than the remote's bounds allow. */
  EVENT_LIMIT: "A2A_EVENT_LIMIT",
  /** The artifact exceeded `max_artifact_bytes`; nothing of it is retained. */
  ARTIFACT_TOO_LARGE: "A2A_ARTIFACT_TOO_LARGE",
  /** The remote spoke something other than A2A 1.0 JSON-RPC/SSE (bad JSON, bad SSE, wrong shape). */
  PROTOCOL: "A2A_PROTOCOL",
  /** The endpoint answered with a redirect; it is never followed. */
  REDIRECT_REFUSED: "A2A_REDIRECT_REFUSED",
  /** The connection failed or ended before the task reached a final state. */
  DISCONNECTED: "A2A_DISCONNECTED",
  /** No retained artifact has this ID in this session (or it was already handed off). */
  NOT_RETAINED: "A2A_NOT_RETAINED",
} as const;

export type A2aErrorCode = (typeof A2aErrorCode)[keyof typeof A2aErrorCode];

declare module "@pablo/kernel" {
  interface ErrorCodeRegistry extends Record<A2aErrorCode, true> {}
}

/** Why a configured remote is not (or only partly) in the catalog; `pablo tools --explain` prints these. */
export const A2aDiagnosticCode = {
  /** The remote's entry is invalid: a URL that is not https (or allowed loopback http), user info. */
  REMOTE_CONFIG: "A2A_REMOTE_CONFIG",
  /** Authority layers deny the card URL or the endpoint; nothing was fetched. */
  REMOTE_DENIED: "A2A_REMOTE_DENIED",
  /** The card could not be fetched: redirect, timeout, too large, HTTP error, not JSON. */
  CARD_UNAVAILABLE: "A2A_CARD_UNAVAILABLE",
  /** The card is not a valid A2A 1.0 card (a 0.3-only card included). */
  CARD_INVALID: "A2A_CARD_INVALID",
  /** The card's `supportedInterfaces` do not list the configured endpoint as JSON-RPC 1.0. */
  CARD_ENDPOINT_MISMATCH: "A2A_CARD_ENDPOINT_MISMATCH",
  /** The `bearer` credential did not resolve for this endpoint. */
  CREDENTIAL: "A2A_CREDENTIAL",
  /** Two remotes map to one provider name; both are left out. */
  NAME_COLLISION: "A2A_NAME_COLLISION",
  /** Admitted: the card was fetched and matches (informational, for `--explain`). */
  ADMITTED: "A2A_ADMITTED",
} as const;

export type A2aDiagnosticCode = (typeof A2aDiagnosticCode)[keyof typeof A2aDiagnosticCode];

/** One line of what happened to a configured remote. Messages never carry credential values. */
export interface A2aDiagnostic {
  readonly remote: string;
  readonly code: A2aDiagnosticCode;
  readonly message: string;
}

/** Host faults of `serveA2a` (a port in use, a bad card), with a stable code. */
export const A2aServeCode = {
  LISTEN_FAILED: "A2A_SERVE_LISTEN_FAILED",
  INVALID_OPTIONS: "A2A_SERVE_INVALID_OPTIONS",
} as const;

export type A2aServeCode = (typeof A2aServeCode)[keyof typeof A2aServeCode];

export class A2aServeError extends PabloError {
  override readonly code: A2aServeCode;

  constructor(code: A2aServeCode, message: string) {
    super(code, message);
    this.name = "A2aServeError";
    this.code = code;
  }
}
