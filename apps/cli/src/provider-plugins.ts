import { dirname } from "node:path";
import type { Deployment } from "@pablo/config";
import type { ToolDefinition } from "@pablo/kernel";
import { type LoadedPlugins, loadPlugins } from "@pablo/plugins";

/**
 * The plugins `[options.plugins]` lists, resolved from the deployment file's directory: the
 * loader, its manifest checks and its signature verification load only when a plugin is listed.
 */
export function openPlugins(
  deployment: Deployment,
  reserved: readonly ToolDefinition[],
): Promise<LoadedPlugins> {
  return loadPlugins(pluginEntries(deployment), { resolveFrom: dirname(deployment.file), reserved });
}

function pluginEntries(deployment: Deployment): Parameters<typeof loadPlugins>[0] {
  const section = (deployment.options["plugins"] ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(section).map(([name, entry]) => ({ name, ...entry })) as unknown as Parameters<
    typeof loadPlugins
  >[0];
}
