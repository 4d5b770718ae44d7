import { PROVIDER_NAME_PATTERN, withHashSuffix } from "@pablo/kernel";

/** Plugin IDs: lower-case letters, digits and single dashes, starting with a letter. */
export const PLUGIN_ID_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
export const MAX_PLUGIN_ID = 64;
/** Tool names within a plugin: no dots, so the native name has exactly three parts. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]*$/;
export const MAX_TOOL_NAME = 64;

/** `acme-tools` -> `acme_tools`: the form of the ID used in provider names. */
export function pluginIdSafe(pluginId: string): string {
  return pluginId.replace(/[^a-zA-Z0-9]/g, "_");
}

/** The kernel's native name of a plugin tool: `plugin.<pluginId>.<toolName>`. */
export function pluginNativeName(pluginId: string, toolName: string): string {
  return `plugin.${pluginId}.${toolName}`;
}

/**
 * The name a model sees: `plugin_<pluginIdSafe>_<toolName>`. A longer name than 64 characters is
 * cut and given a hash of the native name (the kernel's `withHashSuffix`), so it stays unique and
 * deterministic; `shortened` tells the author.
 */
export function pluginProviderName(pluginId: string, toolName: string): { name: string; shortened: boolean } {
  const full = `plugin_${pluginIdSafe(pluginId)}_${toolName}`;
  if (full.length <= 64 && PROVIDER_NAME_PATTERN.test(full)) return { name: full, shortened: false };
  return { name: withHashSuffix(full, pluginNativeName(pluginId, toolName)), shortened: true };
}

export function isValidPluginId(id: string): boolean {
  return id.length <= MAX_PLUGIN_ID && PLUGIN_ID_PATTERN.test(id);
}

export function isValidToolName(name: string): boolean {
  return name.length <= MAX_TOOL_NAME && TOOL_NAME_PATTERN.test(name);
}

/** npm package names (scoped or not); also keeps a name from walking out of `node_modules`. */
export const NPM_NAME_PATTERN = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** Derives a plugin ID from a package name: `@acme/pablo-plugin-lint` -> `lint`. */
export function pluginIdFromPackageName(packageName: string): string {
  const bare = packageName.replace(/^@[^/]+\//, "").replace(/^pablo-plugin-/, "");
  const id = bare
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .replace(/-+$/, "");
  return id.slice(0, MAX_PLUGIN_ID).replace(/-+$/, "") || "plugin";
}
