import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { PluginCode, type PluginDiagnostic } from "../diagnostics.js";
import { DEFAULT_PLUGIN_TIMEOUT_MS } from "../entry-options.js";
import { type Inspection, inspectPlugin } from "../inspect.js";
import type { ManifestTool, PluginManifest } from "../manifest.js";
import { NPM_NAME_PATTERN } from "../naming.js";

export interface CheckResult {
  readonly valid: boolean;
  /** Errors make the package invalid; warnings do not. Each names its JSON pointer or file. */
  readonly messages: readonly PluginDiagnostic[];
  readonly manifest?: PluginManifest;
  /** The package's entry file, relative to it. */
  readonly entry?: string;
  /** What the module registers, written as `pablo.tools` entries: paste them to fix a mismatch. */
  readonly registered: readonly ManifestTool[];
}

export interface CheckOptions {
  /** Options to run the plugin's setup with, as a deployment would give them. */
  readonly options?: unknown;
}

/**
 * Validates a plugin package as the loader will: the manifest, the entry module, its default
 * export, the closed schemas, the names, and the tools against the manifest. Grants are taken to
 * be exactly what the manifest requests. Adds packaging checks that only matter for publishing.
 * Runs the plugin's module and setup in this process.
 */
export async function checkPlugin(dir: string, options: CheckOptions = {}): Promise<CheckResult> {
  const packageDir = resolve(dir);
  const inspection = await inspectPlugin(packageDir, {
    label: packageDir,
    grants: undefined,
    options: options.options,
    timeoutMs: DEFAULT_PLUGIN_TIMEOUT_MS,
    fresh: true,
  });
  if (inspection.packageJson) packagingChecks(inspection);
  const messages = inspection.diagnostics.items;
  return {
    valid: !inspection.diagnostics.failed,
    messages,
    ...(inspection.manifest ? { manifest: inspection.manifest } : {}),
    ...(inspection.entry ? { entry: inspection.entry } : {}),
    registered: inspection.declarations,
  };
}

function packagingChecks(inspection: Inspection): void {
  const pkg = inspection.packageJson ?? {};
  const d = inspection.diagnostics;
  const name = pkg["name"];
  if (typeof name !== "string" || !NPM_NAME_PATTERN.test(name)) {
    d.error(
      PluginCode.PACKAGE_LAYOUT,
      `package.json name ${JSON.stringify(name)} is not a valid npm package name`,
      { path: "/name" },
    );
  }
  if (pkg["type"] !== "module") {
    d.error(PluginCode.PACKAGE_LAYOUT, 'package.json must set "type": "module" (plugins are ESM)', {
      path: "/type",
    });
  }
  if (pkg["private"] === true)
    d.warn(PluginCode.PACKAGE_LAYOUT, "package.json sets private: true, so npm will not publish it", {
      path: "/private",
    });
  const deps = {
    ...(pkg["dependencies"] as object | undefined),
    ...(pkg["peerDependencies"] as object | undefined),
  };
  if (!("@pablo/plugins" in deps)) {
    d.warn(PluginCode.PACKAGE_LAYOUT, "@pablo/plugins should be a dependency or peer dependency", {
      path: "/dependencies",
    });
  }
  if (!existsSync(join(inspection.dir, "README.md")))
    d.warn(PluginCode.PACKAGE_LAYOUT, "the package has no README.md", { path: "README.md" });
  inspection.manifest?.tools.forEach((tool, i) => {
    if (tool.summary !== undefined && (tool.summary.includes("\n") || tool.summary.length > 120)) {
      d.warn(
        PluginCode.MANIFEST_INVALID,
        `tool ${tool.name}: summary should be one line of at most 120 characters`,
        {
          tool: tool.name,
          path: `/pablo/tools/${i}/summary`,
        },
      );
    }
  });
}
