import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type AuthorityLayer, type CredentialResolver, isCanonicalAbsolutePath } from "@pablo/kernel";
import { resolveSecrets } from "./credentials.js";
import { McpDiagnosticCode } from "./diagnostics.js";
import { checkServerUrl, createHttpTransport } from "./http-transport.js";
import { prepareBearer } from "./oauth/bearer.js";
import { defaultTokenDir, TokenStore } from "./oauth/token-store.js";
import type { ResolvedServer } from "./resolved-server.js";
import { ProcessStdioTransport } from "./stdio-transport.js";

/** A transport ready to connect, with the secret values it carries (to scrub from outputs). */
export type PreparedTransport =
  | {
      readonly ok: true;
      readonly transport: Transport;
      readonly stdio: ProcessStdioTransport | undefined;
      readonly secrets: readonly string[];
    }
  | {
      readonly ok: false;
      readonly code:
        | typeof McpDiagnosticCode.SERVER_CONFIG
        | typeof McpDiagnosticCode.CREDENTIAL
        | typeof McpDiagnosticCode.AUTH_REQUIRED;
      readonly message: string;
    };

/**
 * Builds the transport for one server: credentials resolved through the injected resolver only,
 * the endpoint checked (HTTPS, or loopback HTTP with the explicit opt-in), the process launch
 * described (absolute launcher, exact environment). Nothing is started yet.
 */
/** Where `auth = "oauth"` servers find their tokens, and who decides their authorization-server URLs. */
export interface OAuthContext {
  /** The token directory (`<state>/mcp-oauth`). */
  readonly tokenDir: string;
  /** The task's layers: refresh requests are `net` accesses like any other. */
  readonly layers: readonly AuthorityLayer[];
}

export function prepareTransport(
  server: ResolvedServer,
  credentials: CredentialResolver,
  oauth: OAuthContext = { tokenDir: defaultTokenDir(), layers: [] },
): PreparedTransport {
  if (server.transport === "stdio") {
    for (const [what, path] of [
      ["command", server.command],
      ["cwd", server.cwd],
    ] as const) {
      if (!isCanonicalAbsolutePath(path)) {
        return {
          ok: false,
          code: McpDiagnosticCode.SERVER_CONFIG,
          message: `${what} must be a canonical absolute path`,
        };
      }
    }
    const env = resolveSecrets(credentials, server.name, "environment", server.env);
    if (!env.ok) return { ok: false, code: McpDiagnosticCode.CREDENTIAL, message: env.message };
    const stdio = new ProcessStdioTransport({
      command: server.command,
      args: server.args,
      cwd: server.cwd,
      env: env.values,
      maxMessageBytes: server.maxMessageBytes,
      shutdownTimeoutMs: server.shutdownTimeoutMs,
    });
    return { ok: true, transport: stdio, stdio, secrets: env.secrets };
  }
  const checked = checkServerUrl(server.url, server.allowLoopbackHttp);
  if ("problem" in checked)
    return { ok: false, code: McpDiagnosticCode.SERVER_CONFIG, message: checked.problem };
  const headers = resolveSecrets(credentials, server.name, "headers", server.headers);
  if (!headers.ok) return { ok: false, code: McpDiagnosticCode.CREDENTIAL, message: headers.message };
  const secrets = [...headers.secrets];
  let authorize: ((fetch: FetchLike) => FetchLike) | undefined;
  if (server.oauth) {
    const bearer = prepareBearer({
      server,
      settings: server.oauth,
      url: checked.url,
      store: new TokenStore(oauth.tokenDir),
      layers: oauth.layers,
      credentials,
      secrets,
    });
    if (!bearer.ok) {
      const code =
        bearer.kind === "credential" ? McpDiagnosticCode.CREDENTIAL : McpDiagnosticCode.AUTH_REQUIRED;
      return { ok: false, code, message: bearer.message };
    }
    authorize = bearer.authorize;
  }
  return {
    ok: true,
    transport: createHttpTransport(checked.url, headers.values, server.maxMessageBytes, authorize),
    stdio: undefined,
    secrets,
  };
}
