import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CredentialResolver, isCanonicalAbsolutePath } from "@pablo/kernel";
import { resolveSecrets } from "./credentials.js";
import { McpDiagnosticCode } from "./diagnostics.js";
import { checkServerUrl, createHttpTransport } from "./http-transport.js";
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
      readonly code: typeof McpDiagnosticCode.SERVER_CONFIG | typeof McpDiagnosticCode.CREDENTIAL;
      readonly message: string;
    };

/**
 * Builds the transport for one server: credentials resolved through the injected resolver only,
 * the endpoint checked (HTTPS, or loopback HTTP with the explicit opt-in), the process launch
 * described (absolute launcher, exact environment). Nothing is started yet.
 */
export function prepareTransport(server: ResolvedServer, credentials: CredentialResolver): PreparedTransport {
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
  return {
    ok: true,
    transport: createHttpTransport(checked.url, headers.values, server.maxMessageBytes),
    stdio: undefined,
    secrets: headers.secrets,
  };
}
