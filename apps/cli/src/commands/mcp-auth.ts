import { join, resolve } from "node:path";
import {
  type CredentialReference,
  createCredentialResolver,
  type Deployment,
  deploymentLayer,
  flagsLayer,
  loadDeploymentFile,
  loadJsonPolicy,
  type NetworkOptions,
  type PolicyOptions,
} from "@pablo/config";
import type { AuthorityLayer } from "@pablo/kernel";
import { stateDirectory } from "@pablo/kernel/node";
import { loginMcpServer, logoutMcpServer, McpOAuthError, type McpOptions } from "@pablo/mcp";
import type { GlobalOptions } from "../args.js";
import { ConfigFailure } from "../config-failure.js";
import { resolveBindings } from "../distribution.js";
import { Exit } from "../exit-codes.js";
import { type Io, printJson } from "../output.js";
import { PRESET_DIR } from "../package-root.js";
import { distributionSections, sectionLayers } from "../providers.js";

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
      credentials: createCredentialResolver(
        deployment.credentials,
        oauthReferences(options.name, entry),
        io.env,
      ),
      layers: loginLayers(deployment, global, io.cwd),
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

/** The credentials an OAuth login may use: the server's headers and its client secret or key. */
function oauthReferences(server: string, entry: unknown): CredentialReference[] {
  const config = (entry ?? {}) as {
    headers?: Record<string, string>;
    client_secret?: string;
    client_key?: string;
  };
  const refs: CredentialReference[] = Object.entries(config.headers ?? {}).map(([header, credential]) => ({
    credential,
    consumer: "mcp.headers",
    destination: server,
    keyPath: `options.mcp.servers.${server}.headers.${header}`,
  }));
  for (const key of ["client_secret", "client_key"] as const) {
    const credential = config[key];
    if (credential) {
      refs.push({
        credential,
        consumer: "mcp.oauth",
        destination: server,
        keyPath: `options.mcp.servers.${server}.${key}`,
      });
    }
  }
  return refs;
}

/**
 * The deployment's layers, its policy file and the flags, as a task would have them (the state
 * layer only concerns files). Kept in step with `buildLayers` in distribution.ts.
 */
function loginLayers(deployment: Deployment, global: GlobalOptions, cwd: string): AuthorityLayer[] {
  const layers = [
    deploymentLayer(
      deployment.options["policy"] as PolicyOptions | undefined,
      deployment.options["network"] as NetworkOptions | undefined,
    ),
    ...sectionLayers(deployment),
  ];
  if (global.policy) {
    const policy = loadJsonPolicy(resolve(cwd, global.policy));
    if (!policy.ok) throw new ConfigFailure(policy.errors);
    layers.push(policy.value);
  }
  layers.push(
    flagsLayer({ allowWrite: global.allowWrite, noShell: global.noShell, noFilesystem: global.noFilesystem }),
  );
  return layers;
}
