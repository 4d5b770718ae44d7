import type { CredentialResolver } from "@pablo/kernel";
import type { ClientSecrets } from "./client-provider.js";
import { McpOAuthCode, McpOAuthError } from "./codes.js";
import { OAUTH_CREDENTIAL_CONSUMER, type OAuthSettings } from "./settings.js";

/**
 * Resolves `client_secret` and `client_key` (consumer `mcp.oauth`, destination the server name)
 * and checks that the settings can work: client_credentials needs a client ID and a secret or key.
 * Throws {@link McpOAuthError} naming the key and credential, never a value.
 */
export function resolveClientSecrets(
  server: string,
  settings: OAuthSettings,
  credentials: CredentialResolver,
): ClientSecrets {
  const resolve = (key: string, credential: string | undefined): string | undefined => {
    if (credential === undefined) return undefined;
    const resolved = credentials.resolve(credential, {
      consumer: OAUTH_CREDENTIAL_CONSUMER,
      destination: server,
    });
    if (resolved.ok) return resolved.value;
    throw new McpOAuthError(
      McpOAuthCode.CREDENTIAL,
      `${key}: credential ${credential}: ${resolved.code}: ${resolved.message}`,
    );
  };
  const clientSecret = resolve("client_secret", settings.clientSecret);
  const clientKeyPem = resolve("client_key", settings.clientKey);
  if ((clientSecret !== undefined || clientKeyPem !== undefined) && settings.clientId === undefined) {
    throw new McpOAuthError(
      McpOAuthCode.CONFIG,
      "client_secret and client_key belong to a client_id; set client_id",
    );
  }
  if (
    settings.grant === "client_credentials" &&
    (settings.clientId === undefined || (clientSecret === undefined && clientKeyPem === undefined))
  ) {
    throw new McpOAuthError(
      McpOAuthCode.CONFIG,
      'grant = "client_credentials" needs client_id and client_secret or client_key',
    );
  }
  return { clientSecret, clientKeyPem };
}
