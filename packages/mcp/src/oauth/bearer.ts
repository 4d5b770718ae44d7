import {
  auth,
  extractWWWAuthenticateParams,
  type OAuthDiscoveryState,
  refreshAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { AuthorityLayer, CredentialResolver } from "@pablo/kernel";
import type { ResolvedHttpServer } from "../resolved-server.js";
import { type ClientSecrets, PabloOAuthProvider } from "./client-provider.js";
import { resolveClientSecrets } from "./client-secrets.js";
import { McpOAuthCode, McpOAuthError } from "./codes.js";
import { oauthFetch } from "./oauth-fetch.js";
import { unionScopes } from "./scopes.js";
import type { OAuthSettings } from "./settings.js";
import { needsRenewal, type TokenRecord, type TokenStore } from "./token-store.js";

/** A token this close to its expiry is refreshed before it is sent. */
export const REFRESH_MARGIN_MS = 60_000;

export interface BearerInput {
  readonly server: ResolvedHttpServer;
  readonly settings: OAuthSettings;
  readonly url: URL;
  readonly store: TokenStore;
  readonly layers: readonly AuthorityLayer[];
  readonly credentials: CredentialResolver;
  /**
   * Receives every token and client secret this server uses (refreshed ones too), so the
   * connection scrubs them from any message. Contract: only appended to.
   */
  readonly secrets: string[];
}

export type PreparedBearer =
  | { readonly ok: true; readonly authorize: (fetch: FetchLike) => FetchLike }
  | { readonly ok: false; readonly kind: "not-authorized" | "credential"; readonly message: string };

/**
 * The task side of `auth = "oauth"`: the stored token of exactly this server URL, sent as the
 * bearer on requests to that URL and to nothing else, refreshed before it expires (a machine
 * client with `grant = "client_credentials"` obtains a new one). Nothing here opens a browser or
 * re-sends a request: a 401, or a 403 `insufficient_scope` (whose scopes are remembered for the
 * next login), fails the request with {@link McpOAuthCode.UNAUTHORIZED} naming `pablo mcp login`.
 */
export function prepareBearer(input: BearerInput): PreparedBearer {
  const { server, settings, url, store } = input;
  const login = `run \`pablo mcp login ${server.name}\``;
  let secrets: ClientSecrets;
  let record: TokenRecord | undefined;
  try {
    secrets = resolveClientSecrets(server.name, settings, input.credentials);
    record = store.load(url.href);
  } catch (error) {
    return { ok: false, kind: "credential", message: (error as Error).message };
  }
  const machine = settings.grant === "client_credentials";
  const renewable = machine || record?.tokens?.refresh_token !== undefined;
  if (!machine && !record?.tokens) {
    return { ok: false, kind: "not-authorized", message: `not authorized: ${login}` };
  }
  if (!renewable && needsRenewal(record?.tokens, Date.now(), 0)) {
    return {
      ok: false,
      kind: "not-authorized",
      message: `its token expired and cannot be refreshed: ${login}`,
    };
  }
  const remember = (next: TokenRecord) => {
    record = next;
    for (const value of [next.tokens?.access_token, next.tokens?.refresh_token]) {
      if (value !== undefined && !input.secrets.includes(value)) input.secrets.push(value);
    }
  };
  if (record) remember(record);
  for (const value of [secrets.clientSecret, secrets.clientKeyPem]) if (value) input.secrets.push(value);

  let refreshing: Promise<void> | undefined;
  let forceRefresh = false;
  let renewed = false;
  const refresh = async (): Promise<void> => {
    const provider = new PabloOAuthProvider({
      server: server.name,
      serverUrl: url.href,
      settings,
      secrets,
      record: record ?? { version: 1, serverUrl: url.href, server: server.name, obtainedAt: Date.now() },
      persist: (next) => {
        remember(next);
        store.save(next);
      },
      scope: () => unionScopes(settings.scopes, record?.tokens?.scope),
    });
    const fetchFn = oauthFetch({ layers: input.layers, allowLoopbackHttp: server.allowLoopbackHttp });
    try {
      if (machine) await auth(provider, { serverUrl: url, fetchFn });
      else await refreshWith(provider, record, url, fetchFn);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw unauthorized(`its token could not be refreshed (${why.slice(0, 200)}): ${login}`);
    }
  };
  const currentToken = async (): Promise<string> => {
    // A token this task just obtained is used until it expires, even if it lives less than the margin.
    const margin = renewed ? 0 : REFRESH_MARGIN_MS;
    if (forceRefresh || needsRenewal(record?.tokens, Date.now(), margin)) {
      refreshing ??= refresh().finally(() => {
        refreshing = undefined;
      });
      await refreshing;
      forceRefresh = false;
      renewed = true;
    }
    const token = record?.tokens?.access_token;
    if (token === undefined) throw unauthorized(`it has no token: ${login}`);
    return token;
  };
  const unauthorized = (why: string) =>
    new McpOAuthError(McpOAuthCode.UNAUTHORIZED, `MCP server ${server.name}: ${why}`);

  return {
    ok: true,
    authorize: (inner) => async (target, init) => {
      const href = typeof target === "string" ? target : target.href;
      // The token belongs to this exact URL; anything else goes out as it came.
      if (href !== url.href) return inner(target, init);
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${await currentToken()}`);
      const response = await inner(target, { ...init, headers });
      if (response.status !== 401 && response.status !== 403) return response;
      const challenge = extractWWWAuthenticateParams(response);
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 403 && challenge.error === "insufficient_scope") {
        const wanted = challenge.scope;
        store.update(url.href, (r) => {
          const challengedScope = unionScopes(r.challengedScope, wanted);
          return challengedScope === undefined ? r : { ...r, challengedScope };
        });
        throw unauthorized(
          `the call needs more scope${wanted ? ` (${wanted})` : ""} than the token has; it was not re-sent: ${login}`,
        );
      }
      if (response.status === 403) return response;
      forceRefresh = renewable;
      throw unauthorized(`the server refused its token (HTTP 401); the request was not re-sent: ${login}`);
    },
  };
}

/**
 * A refresh-token grant against the authorization server the login discovered (its URL decided
 * by the net dimension again, through `fetchFn`), for the same resource. Nothing interactive.
 */
async function refreshWith(
  provider: PabloOAuthProvider,
  record: TokenRecord | undefined,
  url: URL,
  fetchFn: FetchLike,
): Promise<void> {
  const discovery = record?.discovery as OAuthDiscoveryState | undefined;
  const refreshToken = record?.tokens?.refresh_token;
  const client = provider.clientInformation();
  if (!discovery?.authorizationServerUrl || refreshToken === undefined || !client) {
    throw new McpOAuthError(McpOAuthCode.FAILED, "no refresh token or authorization server is recorded");
  }
  const tokens = await refreshAuthorization(discovery.authorizationServerUrl, {
    ...(discovery.authorizationServerMetadata ? { metadata: discovery.authorizationServerMetadata } : {}),
    clientInformation: client,
    refreshToken,
    resource: new URL(discovery.resourceMetadata?.resource ?? url.href),
    ...(provider.addClientAuthentication
      ? { addClientAuthentication: provider.addClientAuthentication }
      : {}),
    fetchFn,
  });
  provider.saveTokens({ ...tokens, issuer: discovery.authorizationServerUrl });
}
