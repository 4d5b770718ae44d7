import type { HttpServerConfig } from "../options-schema.js";

/** `auth = "oauth"` of one HTTP server, with every default applied. */
export interface OAuthSettings {
  readonly grant: "authorization_code" | "client_credentials";
  /** A pre-registered client ID; first in the spec's order of client identities. */
  readonly clientId: string | undefined;
  /** Credential name (consumer `mcp.oauth`) of the pre-registered client's secret. */
  readonly clientSecret: string | undefined;
  /** Credential name (consumer `mcp.oauth`) of a PKCS#8 PEM key for private_key_jwt. */
  readonly clientKey: string | undefined;
  readonly clientKeyAlgorithm: "ES256" | "RS256";
  /** Second in the order: the URL used as client ID where the server supports metadata documents. */
  readonly clientMetadataUrl: string | undefined;
  /** Configured scopes; empty means "as the server says". */
  readonly scopes: readonly string[];
  readonly loginTimeoutMs: number;
}

export const OAUTH_DEFAULTS = {
  grant: "authorization_code",
  clientKeyAlgorithm: "ES256",
  loginTimeoutMs: 300_000,
} as const;

/** The consumer every OAuth client credential is resolved for (destination: the server name). */
export const OAUTH_CREDENTIAL_CONSUMER = "mcp.oauth";

/** The OAuth settings of a validated HTTP server entry, or `undefined` without `auth = "oauth"`. */
export function resolveOAuthSettings(config: HttpServerConfig): OAuthSettings | undefined {
  if (config.auth !== "oauth") return undefined;
  return {
    grant: config.grant ?? OAUTH_DEFAULTS.grant,
    clientId: config.client_id,
    clientSecret: config.client_secret,
    clientKey: config.client_key,
    clientKeyAlgorithm: config.client_key_algorithm ?? OAUTH_DEFAULTS.clientKeyAlgorithm,
    clientMetadataUrl: config.client_metadata_url,
    scopes: config.scopes ?? [],
    loginTimeoutMs: config.login_timeout_ms ?? OAUTH_DEFAULTS.loginTimeoutMs,
  };
}
