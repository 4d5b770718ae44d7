import { resolveServer } from "../resolved-server.js";
import { REFRESH_MARGIN_MS } from "./bearer.js";
import { McpOAuthCode, McpOAuthError } from "./codes.js";
import { resolveOAuthServer } from "./login.js";
import { needsRenewal, TokenStore } from "./token-store.js";

/** Where one `auth = "oauth"` server stands, for `pablo tools --explain` and `policy check`. */
export interface McpAuthorizationState {
  readonly server: string;
  readonly serverUrl: string;
  /**
   * - `authorized`: a token that is not about to expire.
   * - `refreshable`: expired or about to, with a refresh token (or a machine client): renewed on use.
   * - `not-authorized`: no token, or one that expired for good; `pablo mcp login NAME` is needed.
   * - `unreadable`: the token file is not safe to read (wrong owner, mode or type).
   */
  readonly state: "authorized" | "refreshable" | "not-authorized" | "unreadable";
  readonly grant: "authorization_code" | "client_credentials";
  readonly scope?: string;
  /** ms since the epoch. */
  readonly expiresAt?: number;
  /** Scopes a call was refused for since the last login. */
  readonly challengedScope?: string;
  readonly file: string;
  /** One line for a person; never contains a token. */
  readonly summary: string;
}

/**
 * The authorization state of every `auth = "oauth"` server of `[options.mcp.servers]`, read from
 * the token directory without any network request. Servers whose entry is invalid are skipped
 * (the catalog reports those).
 */
export function mcpAuthorizationStates(
  servers: Readonly<Record<string, unknown>>,
  tokenDir: string,
  now: number = Date.now(),
): McpAuthorizationState[] {
  const store = new TokenStore(tokenDir);
  const states: McpAuthorizationState[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    const server = resolveServer(name, raw);
    if ("problem" in server || server.transport !== "http" || !server.oauth) continue;
    const base = {
      server: name,
      serverUrl: server.url,
      grant: server.oauth.grant,
      file: store.fileFor(server.url),
    };
    let record: ReturnType<TokenStore["load"]>;
    try {
      record = store.load(server.url);
    } catch (error) {
      const why = error instanceof McpOAuthError ? error.message : String(error);
      states.push({ ...base, state: "unreadable", summary: `token file unreadable: ${why}` });
      continue;
    }
    const tokens = record?.tokens;
    const extra = {
      ...(tokens?.scope ? { scope: tokens.scope } : {}),
      ...(tokens?.expires_at !== undefined ? { expiresAt: tokens.expires_at } : {}),
      ...(record?.challengedScope ? { challengedScope: record.challengedScope } : {}),
    };
    const machine = server.oauth.grant === "client_credentials";
    const login = `run \`pablo mcp login ${name}\``;
    const scopeText = tokens?.scope ? ` for ${tokens.scope}` : "";
    if (tokens && !needsRenewal(tokens, now, REFRESH_MARGIN_MS)) {
      const until =
        tokens.expires_at === undefined ? "" : ` until ${new Date(tokens.expires_at).toISOString()}`;
      const more = record?.challengedScope ? `; a call asked for ${record.challengedScope}: ${login}` : "";
      states.push({
        ...base,
        ...extra,
        state: "authorized",
        summary: `authorized${scopeText}${until}${more}`,
      });
    } else if (tokens?.refresh_token !== undefined || machine) {
      states.push({
        ...base,
        ...extra,
        state: "refreshable",
        summary: tokens
          ? `token expired or expiring${scopeText}; renewed on first use`
          : "machine client; a token is obtained on first use",
      });
    } else {
      states.push({
        ...base,
        ...extra,
        state: "not-authorized",
        summary: tokens ? `token expired: ${login}` : `not authorized: ${login}`,
      });
    }
  }
  return states;
}

/**
 * `pablo mcp logout NAME`: removes the stored tokens (and any client registration) of the
 * server's exact URL. Nothing is sent anywhere.
 */
export function logoutMcpServer(
  name: string,
  config: unknown,
  tokenDir: string,
): { removed: boolean; file: string; serverUrl: string } {
  const serverUrl = resolveOAuthServer(name, config).url;
  const store = new TokenStore(tokenDir);
  try {
    return { removed: store.remove(serverUrl), file: store.fileFor(serverUrl), serverUrl };
  } catch (error) {
    throw new McpOAuthError(
      McpOAuthCode.STORE,
      `could not remove ${store.fileFor(serverUrl)}: ${String(error)}`,
    );
  }
}
