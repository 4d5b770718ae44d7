import { PabloError } from "@pablo/kernel";

/**
 * Codes of `pablo mcp login` / `logout` and of the OAuth requests behind them. Messages never
 * carry a token, a client secret or an authorization code.
 */
export const McpOAuthCode = {
  /**
   * The server is not an `http` server with `auth = "oauth"`, or its settings cannot work together
   * (`grant = "client_credentials"` without `client_id` and a secret or key, an `Authorization` header).
   */
  CONFIG: "MCP_OAUTH_CONFIG",
  /** Authority layers deny the MCP server itself (`mcp.server`): nothing is requested. */
  SERVER_DENIED: "MCP_OAUTH_SERVER_DENIED",
  /** No `[options.mcp.servers.NAME]` with that name. */
  UNKNOWN_SERVER: "MCP_OAUTH_UNKNOWN_SERVER",
  /** An authorization-server URL was refused: not https (or loopback http where allowed), or denied by the net dimension. */
  NET_REFUSED: "MCP_OAUTH_NET_REFUSED",
  /** The protected-resource metadata names a resource other than the configured server URL. */
  RESOURCE_MISMATCH: "MCP_OAUTH_RESOURCE_MISMATCH",
  /** No authorization arrived at the redirect URI within `login_timeout_ms`. */
  LOGIN_TIMEOUT: "MCP_OAUTH_LOGIN_TIMEOUT",
  /** The redirect carried a `state` other than the one sent: the login is abandoned. */
  STATE_MISMATCH: "MCP_OAUTH_STATE_MISMATCH",
  /** The authorization server answered the redirect with an error (the user declined...). */
  AUTHORIZATION_DENIED: "MCP_OAUTH_AUTHORIZATION_DENIED",
  /** The server kept answering `insufficient_scope` after the allowed number of authorizations. */
  STEP_UP_LIMIT: "MCP_OAUTH_STEP_UP_LIMIT",
  /** Discovery, registration or the token request failed, or the server refused the new token. */
  FAILED: "MCP_OAUTH_FAILED",
  /** A credential named by `client_secret` or `client_key` did not resolve. */
  CREDENTIAL: "MCP_OAUTH_CREDENTIAL",
  /** The token file could not be read or written safely (wrong owner, mode or type). */
  STORE: "MCP_OAUTH_STORE",
  /**
   * During a task: the server refused the stored token (HTTP 401), asked for more scope
   * (403 `insufficient_scope`), or the token expired and could not be refreshed. The request was
   * not re-sent; the message names `pablo mcp login NAME`.
   */
  UNAUTHORIZED: "MCP_OAUTH_UNAUTHORIZED",
  /** Login was cancelled (Ctrl-C). */
  CANCELLED: "MCP_OAUTH_CANCELLED",
} as const;

export type McpOAuthCode = (typeof McpOAuthCode)[keyof typeof McpOAuthCode];

/** A login or token operation that could not complete; `code` is one of {@link McpOAuthCode}. */
export class McpOAuthError extends PabloError {
  override readonly code: McpOAuthCode;

  constructor(code: McpOAuthCode, message: string) {
    super(code, message);
    this.name = "McpOAuthError";
    this.code = code;
  }
}
