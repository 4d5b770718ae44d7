// What plugin code needs from the kernel, so a plugin depends on @pablo/plugins alone.
export type {
  Access,
  AuditNotes,
  CanonicalUrl,
  Effect,
  JsonValue,
  Risk,
  ToolContext,
  ToolFailure,
  ToolResult,
  ToolSuccess,
  UrlCheck,
} from "@pablo/kernel";
// A plugin that declares `net` accesses checks its URL with the kernel's own canonical-URL rule,
// so it declares (and requests) exactly the spelling the kernel decides on.
export { checkCanonicalUrl, ErrorCode, fail, ok, UrlCode } from "@pablo/kernel";
export type { CheckOptions, CheckResult } from "./author/check.js";
export { checkPlugin } from "./author/check.js";
export type { PackOptions, PackResult } from "./author/pack.js";
export { packPlugin } from "./author/pack.js";
export type { ScaffoldErrorCode, ScaffoldResult } from "./author/scaffold.js";
export { scaffoldPlugin } from "./author/scaffold.js";
export type { AuthorToolsOptions } from "./author/tools.js";
export { createPluginAuthorTools } from "./author/tools.js";
export type { PluginDiagnostic } from "./diagnostics.js";
export { PluginCode } from "./diagnostics.js";
export type { PluginEntry, PluginEntryOptions } from "./entry-options.js";
export { DEFAULT_PLUGIN_TIMEOUT_MS, PluginEntryOptionsSchema } from "./entry-options.js";
export type { InstantiateOptions } from "./instantiate.js";
export { instantiatePlugin } from "./instantiate.js";
export type { LoadConfig, LoadedPlugins } from "./loader.js";
export { loadPlugins } from "./loader.js";
export type { ManifestTool, PluginManifest, PluginPermission } from "./manifest.js";
export { effectiveRisk, PLUGIN_PERMISSIONS, PluginManifestSchema, validateManifest } from "./manifest.js";
export {
  isValidPluginId,
  isValidToolName,
  pluginIdFromPackageName,
  pluginIdSafe,
  pluginNativeName,
  pluginProviderName,
} from "./naming.js";
export type { PabloPlugin, PluginHost, PluginSpec, PluginTool } from "./sdk.js";
export { definePlugin, defineTool, isPabloPlugin, PLUGIN_API_VERSION } from "./sdk.js";
