import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type AuthorityLayer, type CredentialResolver, evaluateAuthority } from "@pablo/kernel";
import { resolveSecrets } from "../credentials.js";
import { checkServerUrl } from "../http-transport.js";
import { type ResolvedHttpServer, resolveServer } from "../resolved-server.js";
import { openAuthorizationPage } from "./browser.js";
import { PabloOAuthProvider } from "./client-provider.js";
import { resolveClientSecrets } from "./client-secrets.js";
import { McpOAuthCode, McpOAuthError } from "./codes.js";
import { oauthFetch } from "./oauth-fetch.js";
import { type RedirectReceiver, startRedirectReceiver } from "./redirect-receiver.js";
import { unionScopes } from "./scopes.js";
import { type Challenge, probeServer } from "./server-probe.js";
import type { OAuthSettings } from "./settings.js";
import { type TokenRecord, TokenStore } from "./token-store.js";

/**
 * Authorizations one login may run: the first, and step-ups when the server still answers
 * `insufficient_scope`. A server that is never satisfied ends the login instead of looping.
 */
export const MAX_AUTHORIZATIONS = 3;

export interface LoginOptions {
  /** The server's name in `[options.mcp.servers]`. */
  readonly name: string;
  /** Its entry as the deployment holds it; it must be `http` with `auth = "oauth"`. */
  readonly config: unknown;
  readonly credentials: CredentialResolver;
  /** Authority layers: the server must be allowed (`mcp.server`), every OAuth URL (`net`). */
  readonly layers: readonly AuthorityLayer[];
  /** The token directory (`<state>/mcp-oauth`, {@link defaultTokenDir}). */
  readonly tokenDir: string;
  /** Where `$BROWSER` is read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Progress for the person: the authorization URL, or that the browser was opened. */
  readonly stderr: (text: string) => void;
  readonly signal: AbortSignal;
}

export interface LoginResult {
  readonly server: string;
  readonly serverUrl: string;
  /** False when the server let Pablo in without authorization: nothing was stored. */
  readonly authorized: boolean;
  readonly scope: string | undefined;
  readonly expiresAt: number | undefined;
  /** How many authorizations ran (1 + step-ups). */
  readonly authorizations: number;
  /** The token file (mode 0600). */
  readonly file: string;
}

/**
 * `pablo mcp login NAME`: the MCP authorization flow for one server. The server is asked first;
 * its challenge (or the well-known paths) leads to the protected-resource and authorization-server
 * metadata; the client identity is the pre-registered one, a metadata-document URL, or a dynamic
 * registration; the browser gets an authorization URL with PKCE S256, `state` and `resource`, and
 * comes back to 127.0.0.1 on a random port; the code is exchanged with the token endpoint's
 * supported client authentication. The new token is tried on the server before it is stored, and
 * an `insufficient_scope` answer leads to a step-up, at most {@link MAX_AUTHORIZATIONS} in all.
 */
export async function loginMcpServer(options: LoginOptions): Promise<LoginResult> {
  const { signal } = options;
  const server = resolveOAuthServer(options.name, options.config);
  const settings = requireOAuth(server);
  const url = allowedServerUrl(server, options.layers);
  const headers = resolveSecrets(options.credentials, server.name, "headers", server.headers);
  if (!headers.ok) throw new McpOAuthError(McpOAuthCode.CREDENTIAL, headers.message);
  const secrets = resolveClientSecrets(server.name, settings, options.credentials);
  const store = new TokenStore(options.tokenDir);
  const previous = store.load(url.href);
  const file = store.fileFor(url.href);

  const first = await probeServer(server, url, headers.values, undefined, signal);
  if (first.kind === "ok") {
    return {
      server: server.name,
      serverUrl: url.href,
      authorized: false,
      scope: undefined,
      expiresAt: undefined,
      authorizations: 0,
      file,
    };
  }
  const receiver = settings.grant === "authorization_code" ? await startRedirectReceiver() : undefined;
  try {
    const fetchFn = oauthFetch({
      layers: options.layers,
      allowLoopbackHttp: server.allowLoopbackHttp,
      signal,
    });
    let challenge: Challenge = first.challenge;
    // Scopes the deployment names, those a call was refused for since the last login, and those
    // the challenge names; none of these means the SDK's order applies (scopes_supported, then none).
    let scope = unionScopes(settings.scopes, previous?.challengedScope, challenge.scope);
    let record: TokenRecord = { version: 1, serverUrl: url.href, server: server.name, obtainedAt: 0 };
    for (let attempt = 1; attempt <= MAX_AUTHORIZATIONS; attempt++) {
      record = await authorizeOnce({
        options: { ...options, server },
        settings,
        secrets,
        url,
        record,
        scope,
        challenge,
        receiver,
        fetchFn,
      });
      const token = record.tokens?.access_token as string;
      const verified = await probeServer(server, url, headers.values, token, signal);
      if (verified.kind === "ok") {
        const done: TokenRecord = { ...record, obtainedAt: Date.now() };
        store.save(done);
        return {
          server: server.name,
          serverUrl: url.href,
          authorized: true,
          scope: done.tokens?.scope ?? scope,
          expiresAt: done.tokens?.expires_at,
          authorizations: attempt,
          file,
        };
      }
      challenge = verified.challenge;
      if (challenge.status !== 403 || challenge.error !== "insufficient_scope") {
        throw new McpOAuthError(
          McpOAuthCode.FAILED,
          `MCP server ${server.name} refused the token it was just issued (HTTP ${challenge.status}${challenge.error ? ` ${challenge.error}` : ""})`,
        );
      }
      scope = unionScopes(scope, challenge.scope);
    }
    throw new McpOAuthError(
      McpOAuthCode.STEP_UP_LIMIT,
      `MCP server ${server.name} still answers insufficient_scope after ${MAX_AUTHORIZATIONS} authorizations${challenge.scope ? ` (it asks for ${challenge.scope})` : ""}; nothing was stored`,
    );
  } finally {
    await receiver?.close();
  }
}

interface AttemptInput {
  readonly options: LoginOptions & { readonly server: ResolvedHttpServer };
  readonly settings: OAuthSettings;
  readonly secrets: ReturnType<typeof resolveClientSecrets>;
  readonly url: URL;
  readonly record: TokenRecord;
  readonly scope: string | undefined;
  readonly challenge: Challenge;
  readonly receiver: RedirectReceiver | undefined;
  readonly fetchFn: FetchLike;
}

/** One authorization: a fresh token for `scope` (the client registration and discovery are kept). */
async function authorizeOnce(input: AttemptInput): Promise<TokenRecord> {
  const { options, settings, receiver, url, scope } = input;
  // Without tokens the SDK authorizes anew rather than refreshing the previous scope.
  const { tokens: _previous, ...kept } = input.record;
  let current: TokenRecord = kept;
  let waiting: Promise<string> | undefined;
  const provider = new PabloOAuthProvider({
    server: options.server.name,
    serverUrl: url.href,
    settings,
    secrets: input.secrets,
    record: current,
    persist: (record) => {
      current = record;
    },
    scope: () => scope,
    ...(receiver
      ? {
          interactive: {
            redirectUrl: receiver.redirectUrl,
            open: (authorizationUrl: URL) => {
              // Armed before the browser starts: the redirect may come back at once.
              waiting = receiver.expect(
                provider.expectedState ?? "",
                settings.loginTimeoutMs,
                options.signal,
              );
              waiting.catch(() => undefined);
              openAuthorizationPage(authorizationUrl.href, options.server.name, options.env, options.stderr);
            },
          },
        }
      : {}),
  });
  const common = {
    serverUrl: url,
    ...(scope === undefined ? {} : { scope }),
    ...(input.challenge.resourceMetadataUrl
      ? { resourceMetadataUrl: input.challenge.resourceMetadataUrl }
      : {}),
    fetchFn: input.fetchFn,
  };
  let result = await auth(provider, common).catch(rethrow);
  if (result === "REDIRECT") {
    if (!waiting) throw new McpOAuthError(McpOAuthCode.FAILED, "no authorization page was opened");
    const code = await waiting;
    result = await auth(provider, { ...common, authorizationCode: code }).catch(rethrow);
  }
  if (result !== "AUTHORIZED" || !current.tokens) {
    throw new McpOAuthError(McpOAuthCode.FAILED, "the authorization server issued no token");
  }
  return current;
}

/** SDK and network errors become coded ones; their text never holds a token or code. */
function rethrow(error: unknown): never {
  if (error instanceof McpOAuthError) throw error;
  const message = error instanceof Error ? error.message : String(error);
  throw new McpOAuthError(McpOAuthCode.FAILED, message.slice(0, 500));
}

function requireOAuth(server: ResolvedHttpServer): OAuthSettings {
  if (!server.oauth) {
    throw new McpOAuthError(McpOAuthCode.CONFIG, `MCP server ${server.name} has no auth = "oauth"`);
  }
  if (Object.keys(server.headers).some((header) => header.toLowerCase() === "authorization")) {
    throw new McpOAuthError(
      McpOAuthCode.CONFIG,
      `MCP server ${server.name} sets an Authorization header and auth = "oauth"; keep one`,
    );
  }
  return server.oauth;
}

/** The server URL, checked like any MCP endpoint, and the server allowed by the layers. */
function allowedServerUrl(server: ResolvedHttpServer, layers: readonly AuthorityLayer[]): URL {
  const checked = checkServerUrl(server.url, server.allowLoopbackHttp);
  if ("problem" in checked) throw new McpOAuthError(McpOAuthCode.CONFIG, checked.problem);
  const decision = evaluateAuthority(layers, [{ dimension: "mcp.server", value: server.name }]);
  if (decision.verdict === "deny") {
    throw new McpOAuthError(
      McpOAuthCode.SERVER_DENIED,
      `MCP server ${server.name} is denied by ${decision.layer}/${decision.rule}: ${decision.reason}`,
    );
  }
  return checked.url;
}

/** The server entry resolved as the catalog resolves it; only an `http` server can use OAuth. */
export function resolveOAuthServer(name: string, config: unknown): ResolvedHttpServer {
  if (config === undefined) {
    throw new McpOAuthError(
      McpOAuthCode.UNKNOWN_SERVER,
      `no [options.mcp.servers.${name}] in the deployment`,
    );
  }
  const server = resolveServer(name, config);
  if ("problem" in server) {
    throw new McpOAuthError(McpOAuthCode.CONFIG, `[options.mcp.servers.${name}] ${server.problem}`);
  }
  if (server.transport !== "http") {
    throw new McpOAuthError(
      McpOAuthCode.CONFIG,
      `MCP server ${name} is a stdio server; OAuth needs transport = "http"`,
    );
  }
  return server;
}
