import { join, resolve } from "node:path";
import { createCredentialResolver, type Deployment, loadDeploymentFile } from "@pablo/config";
import { stateDirectory } from "@pablo/kernel/node";
import { loginMcpServer, logoutMcpServer, McpOAuthError, type McpOptions } from "@pablo/mcp";
import type { GlobalOptions } from "../args.js";
import { ConfigFailure } from "../config-failure.js";
import { buildLayers, credentialReferences, resolveBindings } from "../distribution.js";
import { Exit } from "../exit-codes.js";
import { type Io, printJson } from "../output.js";
import { PRESET_DIR } from "../package-root.js";
import { distributionSections } from "../providers.js";

/**
 * `pablo mcp login NAME`: runs the MCP authorization flow for one `auth = "oauth"` server and
 * stores its tokens under the state directory (`<state>/mcp-oauth`, mode 0600). Every OAuth URL
 * is decided by the deployment's layers like any other destination. Exit 0 authorized (or the
 * server asked for nothing), 1 the flow failed, 2 configuration, 130 cancelled.
 */
export async function mcpLoginCommand(
  io: Io,
  global: GlobalOptions,
  options: { name: string },
): Promise<number> {
  const { deployment, entry } = serverEntry(io, global, options.name);
  try {
    const result = await loginMcpServer({
      name: options.name,
      config: entry,
      credentials: createCredentialResolver(deployment.credentials, credentialReferences(deployment), io.env),
      layers: buildLayers(deployment, global, io.cwd),
      tokenDir: tokenDir(io.env),
      env: io.env,
      stderr: io.stderr,
      signal: io.signal,
    });
    if (global.json) printJson(io, result);
    else if (!result.authorized)
      io.stdout(`${result.server} did not ask for authorization; nothing was stored\n`);
    else {
      const scope = result.scope ? ` for ${result.scope}` : "";
      const until = result.expiresAt ? ` until ${new Date(result.expiresAt).toISOString()}` : "";
      io.stdout(`authorized ${result.server}${scope}${until}; token stored in ${result.file}\n`);
    }
    return Exit.OK;
  } catch (error) {
    return failed(io, error);
  }
}

/** `pablo mcp logout NAME`: removes the stored tokens of the server's URL. Nothing is sent. */
export function mcpLogoutCommand(io: Io, global: GlobalOptions, options: { name: string }): number {
  const { entry } = serverEntry(io, global, options.name);
  try {
    const result = logoutMcpServer(options.name, entry, tokenDir(io.env));
    if (global.json) printJson(io, result);
    else
      io.stdout(
        result.removed ? `removed the tokens of ${options.name}\n` : `${options.name} had no stored tokens\n`,
      );
    return Exit.OK;
  } catch (error) {
    return failed(io, error);
  }
}

/** `<state>/mcp-oauth`: the catalog reads tokens from the same place (`defaultTokenDir`). */
function tokenDir(env: NodeJS.ProcessEnv): string {
  return join(stateDirectory(env), "mcp-oauth");
}

function failed(io: Io, error: unknown): number {
  if (!(error instanceof McpOAuthError)) throw error;
  io.stderr(`pablo: ${error.message} [${error.code}]\n`);
  if (error.code === "MCP_OAUTH_CANCELLED") return Exit.CANCELLED;
  return error.code === "MCP_OAUTH_CONFIG" || error.code === "MCP_OAUTH_UNKNOWN_SERVER"
    ? Exit.USAGE
    : Exit.FAILED;
}

function serverEntry(
  io: Io,
  global: GlobalOptions,
  name: string,
): { deployment: Deployment; entry: unknown } {
  const { bindings } = resolveBindings(global, io.cwd);
  const file = global.config ? resolve(io.cwd, global.config) : join(PRESET_DIR, "cli.toml");
  const loaded = loadDeploymentFile(file, { sections: distributionSections(), bindings });
  if (!loaded.ok) throw new ConfigFailure(loaded.errors);
  const mcp = loaded.value.options["mcp"] as McpOptions | undefined;
  return { deployment: loaded.value, entry: mcp?.servers?.[name] };
}
