import { type AnyToolDefinition, CatalogBuilder } from "@pablo/kernel";
import { Check, Errors } from "typebox/value";
import { DiagnosticList, PluginCode, type PluginDiagnostic } from "./diagnostics.js";
import { DEFAULT_PLUGIN_TIMEOUT_MS, type PluginEntry, PluginEntryOptionsSchema } from "./entry-options.js";
import { inspectPlugin } from "./inspect.js";
import { findPackageDir } from "./resolve.js";

export interface LoadConfig {
  /** The directory whose `node_modules` resolves package names (the distribution's root). */
  readonly resolveFrom: string;
  /**
   * Tools already in the host's catalog (built-ins, MCP tools). A plugin tool whose native or
   * provider name collides with one of them, or with an earlier plugin's, refuses its plugin.
   */
  readonly reserved?: readonly AnyToolDefinition[];
}

export interface LoadedPlugins {
  /** Kernel tools of every plugin that loaded: category `plugin`, deferred, wrapped. */
  readonly tools: AnyToolDefinition[];
  /** Skill directories contributed by loaded plugins; the host adds the Skill tool only when non-empty. */
  readonly skills: { pluginId: string; dir: string }[];
  /** One or more per refused plugin; warnings for plugins that loaded. */
  readonly diagnostics: PluginDiagnostic[];
  /** Entry name and plugin ID of each plugin that loaded, in order. */
  readonly loaded: { name: string; pluginId: string; version: string; dir: string }[];
}

/**
 * Loads exactly the plugins a deployment lists, in order. A plugin is all or nothing: any error
 * (manifest, grant, module, options, setup, verification, name collision) refuses it with
 * diagnostics and registers none of its tools. Never throws for anything a plugin does.
 */
export async function loadPlugins(
  entries: readonly PluginEntry[],
  config: LoadConfig,
): Promise<LoadedPlugins> {
  const out: LoadedPlugins = { tools: [], skills: [], diagnostics: [], loaded: [] };
  const accepted: AnyToolDefinition[] = [];
  const names = new Set<string>();
  for (const entry of entries) {
    const diagnostics = new DiagnosticList(String(entry?.name));
    if (!checkEntry(entry, names, diagnostics)) {
      out.diagnostics.push(...diagnostics.items);
      continue;
    }
    const dir = findPackageDir(entry.package, config.resolveFrom);
    if (typeof dir !== "string") {
      diagnostics.error(PluginCode.PLUGIN_NOT_FOUND, dir.error);
      out.diagnostics.push(...diagnostics.items);
      continue;
    }
    const inspection = await inspectPlugin(dir, {
      label: entry.name,
      grants: entry.grants,
      options: entry.options,
      timeoutMs: entry.timeoutMs ?? DEFAULT_PLUGIN_TIMEOUT_MS,
    });
    const found = inspection.diagnostics;
    const manifest = inspection.manifest;
    if (!found.failed && manifest)
      checkCollisions(inspection.tools, [...(config.reserved ?? []), ...accepted], found);
    out.diagnostics.push(...found.items);
    if (found.failed || !manifest) continue;
    accepted.push(...inspection.tools);
    out.tools.push(...inspection.tools);
    out.skills.push(...inspection.skills.map((skillDir) => ({ pluginId: manifest.id, dir: skillDir })));
    out.loaded.push({ name: entry.name, pluginId: manifest.id, version: manifest.version, dir });
  }
  return out;
}

function checkEntry(entry: PluginEntry, names: Set<string>, diagnostics: DiagnosticList): boolean {
  if (entry === null || typeof entry !== "object" || typeof entry.name !== "string" || entry.name === "") {
    diagnostics.error(PluginCode.INVALID_ENTRY, "a plugin entry needs a name");
    return false;
  }
  const { name, ...table } = entry;
  // Interpreted, not compiled: each entry is checked once, and compiling costs more.
  if (!Check(PluginEntryOptionsSchema, table)) {
    const issues = [...Errors(PluginEntryOptionsSchema, table)]
      .filter((e) => e.keyword !== "boolean")
      .slice(0, 5)
      .map((e) => `${e.instancePath || "/"} ${e.message}`);
    diagnostics.error(PluginCode.INVALID_ENTRY, `[options.plugins.${name}] is invalid: ${issues.join("; ")}`);
    return false;
  }
  if (names.has(name)) {
    diagnostics.error(PluginCode.INVALID_ENTRY, `plugin entry ${name} is listed twice`);
    return false;
  }
  names.add(name);
  return true;
}

/** Uses the kernel's own catalog rules, so what loads here also registers in the host's catalog. */
function checkCollisions(
  tools: readonly AnyToolDefinition[],
  existing: readonly AnyToolDefinition[],
  diagnostics: DiagnosticList,
): void {
  const builder = new CatalogBuilder();
  for (const tool of existing) builder.tryAdd(tool, "host");
  for (const tool of tools) {
    const problem = builder.tryAdd(tool, diagnostics.pluginId ?? "plugin");
    if (!problem) continue;
    const short = tool.name.split(".").slice(2).join(".");
    diagnostics.error(
      problem.code === "NAME_COLLISION" ? PluginCode.NAME_COLLISION : PluginCode.INVALID_TOOL,
      problem.message,
      { tool: short },
    );
  }
}
