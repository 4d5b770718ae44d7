import type { AnyToolDefinition } from "@pablo/kernel";
import { DiagnosticList, PluginCode, type PluginDiagnostic } from "./diagnostics.js";
import { DEFAULT_PLUGIN_TIMEOUT_MS } from "./entry-options.js";
import { checkGrants, setUpPlugin } from "./inspect.js";
import { validateManifest } from "./manifest.js";
import { isPabloPlugin } from "./sdk.js";

export interface InstantiateOptions {
  /** Names the plugin in diagnostics. */
  readonly name: string;
  readonly grants: readonly string[];
  readonly options?: unknown;
  readonly timeoutMs?: number;
}

/**
 * The in-process path for a plugin object a host already holds (a first-party plugin bundled
 * with a distribution, or a test): the same manifest, grant and registration checks as
 * {@link loadPlugins}, without resolving or importing a package. `manifest` is the package's
 * `"pablo"` field. Collisions are checked when the host builds its catalog.
 */
export async function instantiatePlugin(
  plugin: unknown,
  manifest: unknown,
  options: InstantiateOptions,
): Promise<{ tools: AnyToolDefinition[]; diagnostics: PluginDiagnostic[] }> {
  const diagnostics = new DiagnosticList(options.name);
  const checked = validateManifest(manifest);
  if (!checked.ok) {
    for (const p of checked.problems)
      diagnostics.error(PluginCode.MANIFEST_INVALID, `${p.path}: ${p.message}`, { path: p.path });
    return { tools: [], diagnostics: diagnostics.items };
  }
  diagnostics.pluginId = checked.manifest.id;
  checkGrants(checked.manifest, options.grants, diagnostics);
  if (!isPabloPlugin(plugin))
    diagnostics.error(PluginCode.NOT_A_PLUGIN, "not a plugin made with definePlugin");
  else if (plugin.id !== checked.manifest.id) {
    diagnostics.error(
      PluginCode.ID_MISMATCH,
      `the plugin ID ${plugin.id} differs from pablo.id ${checked.manifest.id}`,
    );
  }
  if (diagnostics.failed || !isPabloPlugin(plugin)) return { tools: [], diagnostics: diagnostics.items };
  const made = await setUpPlugin(
    plugin,
    checked.manifest,
    {
      grants: options.grants,
      options: options.options,
      timeoutMs: options.timeoutMs ?? DEFAULT_PLUGIN_TIMEOUT_MS,
    },
    diagnostics,
  );
  return { tools: made.tools, diagnostics: diagnostics.items };
}
