import { realpathSync, statSync } from "node:fs";
import { isAbsolute, normalize, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { type AnyToolDefinition, compileValidator } from "@pablo/kernel";
import { DiagnosticList, messageOf, PluginCode } from "./diagnostics.js";
import { type ManifestTool, type PluginManifest, validateManifest } from "./manifest.js";
import { entryFile, type PackageJson, readPackageJson } from "./resolve.js";
import { isPabloPlugin, type PabloPlugin, PLUGIN_API_VERSION } from "./sdk.js";
import { verifyTools } from "./verify.js";

export interface InspectOptions {
  /** Names the plugin in diagnostics: the deployment's entry name, or the directory. */
  readonly label: string;
  /** What the deployment grants; `undefined` grants exactly what the manifest requests (author checks). */
  readonly grants: readonly string[] | undefined;
  readonly options: unknown;
  readonly timeoutMs: number;
  /** Import the module afresh (author checks of a package being edited). */
  readonly fresh?: boolean;
}

export interface Inspection {
  readonly dir: string;
  readonly packageJson: PackageJson | undefined;
  readonly manifest: PluginManifest | undefined;
  readonly entry: string | undefined;
  readonly tools: AnyToolDefinition[];
  readonly skills: string[];
  /** What the module registered, written as manifest tool entries. */
  readonly declarations: ManifestTool[];
  readonly diagnostics: DiagnosticList;
}

const SETUP_TIMEOUT_MS = 10_000;
let freshCounter = 0;

/**
 * Reads one plugin package and decides whether it may load. No plugin code runs before the
 * manifest is valid and every permission and effect it requests is granted.
 */
export async function inspectPlugin(dir: string, options: InspectOptions): Promise<Inspection> {
  const diagnostics = new DiagnosticList(options.label);
  const result = {
    dir,
    packageJson: undefined as PackageJson | undefined,
    manifest: undefined as PluginManifest | undefined,
    entry: undefined as string | undefined,
    tools: [] as AnyToolDefinition[],
    skills: [] as string[],
    declarations: [] as ManifestTool[],
    diagnostics,
  };
  const read = readPackageJson(dir);
  if (!read.ok) {
    diagnostics.error(PluginCode.PACKAGE_JSON_INVALID, read.error, { path: "package.json" });
    return result;
  }
  const pkg = read.pkg;
  result.packageJson = pkg;
  const manifest = readManifest(pkg, diagnostics);
  if (!manifest) return result;
  result.manifest = manifest;
  diagnostics.pluginId = manifest.id;
  checkGrants(manifest, options.grants, diagnostics);
  result.skills = checkSkills(dir, manifest, diagnostics);
  if (diagnostics.failed) return result;

  const entry = entryFile(dir, pkg);
  if ("error" in entry) {
    diagnostics.error(PluginCode.ENTRY_MISSING, entry.error, { path: "package.json#exports" });
    return result;
  }
  result.entry = entry.relative;
  const plugin = await importPlugin(entry.file, manifest, options.fresh ?? false, diagnostics);
  if (!plugin) return result;
  const made = await setUpPlugin(plugin, manifest, options, diagnostics);
  result.declarations = made.declarations;
  result.tools = made.tools;
  return result;
}

/**
 * Runs a plugin object's setup against its manifest: validates the options, records what it
 * registers and verifies that against the manifest. Tools come back only when nothing failed.
 */
export async function setUpPlugin(
  plugin: PabloPlugin,
  manifest: PluginManifest,
  options: Pick<InspectOptions, "grants" | "options" | "timeoutMs">,
  diagnostics: DiagnosticList,
): Promise<{ tools: AnyToolDefinition[]; declarations: ManifestTool[] }> {
  const validOptions = checkOptions(plugin, options.options, diagnostics);
  if (diagnostics.failed) return { tools: [], declarations: [] };
  const registered = await runSetup(plugin, manifest, validOptions, options.grants, diagnostics);
  if (!registered) return { tools: [], declarations: [] };
  const leftOut = ungrantedTools(manifest, options.grants);
  const verified = verifyTools(manifest, registered, options.timeoutMs, diagnostics, leftOut);
  return { tools: diagnostics.failed ? [] : verified.tools, declarations: verified.declarations };
}

function readManifest(pkg: PackageJson, diagnostics: DiagnosticList): PluginManifest | undefined {
  if (pkg["pablo"] === undefined) {
    diagnostics.error(PluginCode.MANIFEST_MISSING, 'package.json has no "pablo" manifest field', {
      path: "/pablo",
    });
    return undefined;
  }
  const checked = validateManifest(pkg["pablo"]);
  if (!checked.ok) {
    for (const p of checked.problems)
      diagnostics.error(PluginCode.MANIFEST_INVALID, `${p.path}: ${p.message}`, { path: p.path });
    return undefined;
  }
  const manifest = checked.manifest;
  if (manifest.version !== pkg["version"]) {
    diagnostics.error(
      PluginCode.VERSION_MISMATCH,
      `pablo.version ${manifest.version} differs from the package version ${String(pkg["version"])}`,
      { path: "/pablo/version" },
    );
  }
  const names = new Set<string>();
  manifest.tools.forEach((t, i) => {
    if (names.has(t.name)) {
      diagnostics.error(PluginCode.DUPLICATE_TOOL, `the manifest declares tool ${t.name} twice`, {
        tool: t.name,
        path: `/pablo/tools/${i}/name`,
      });
    }
    names.add(t.name);
  });
  return manifest;
}

export function checkGrants(
  manifest: PluginManifest,
  grants: readonly string[] | undefined,
  diagnostics: DiagnosticList,
): void {
  if (manifest.tools.length > 0 && !manifest.permissions.includes("agent.tool.register")) {
    diagnostics.error(
      PluginCode.PERMISSION_UNDECLARED,
      "the manifest declares tools but does not request agent.tool.register",
      {
        path: "/pablo/permissions",
      },
    );
  }
  if ((manifest.skills?.length ?? 0) > 0 && !manifest.permissions.includes("agent.skill.register")) {
    diagnostics.error(
      PluginCode.PERMISSION_UNDECLARED,
      "the manifest declares skills but does not request agent.skill.register",
      {
        path: "/pablo/permissions",
      },
    );
  }
  if (grants === undefined) return;
  const granted = new Set(grants);
  for (const permission of manifest.permissions) {
    if (!granted.has(permission)) {
      diagnostics.error(
        PluginCode.GRANT_MISSING,
        `the plugin requests ${permission}, which the deployment does not grant`,
        {
          path: "/pablo/permissions",
        },
      );
    }
  }
  // A tool whose effects are not all granted is left out on its own (a warning), so a deployment
  // can grant one capability of a plugin and not another. When nothing the plugin contributes
  // would remain, the plugin is refused (errors), as before.
  const leftOut = ungrantedTools(manifest, grants);
  const nothingLeft = leftOut.size === manifest.tools.length && (manifest.skills?.length ?? 0) === 0;
  manifest.tools.forEach((tool, i) => {
    for (const effect of tool.effects) {
      if (granted.has(effect)) continue;
      const message = `tool ${tool.name} uses effect ${effect}, which the deployment does not grant`;
      const where = { tool: tool.name, path: `/pablo/tools/${i}/effects` };
      if (nothingLeft) diagnostics.error(PluginCode.GRANT_MISSING, message, where);
      else diagnostics.warn(PluginCode.GRANT_MISSING, `${message}; the tool is left out`, where);
    }
  });
}

/** Names of the manifest's tools with an effect the deployment does not grant (none for author checks). */
export function ungrantedTools(manifest: PluginManifest, grants: readonly string[] | undefined): Set<string> {
  if (grants === undefined) return new Set();
  const granted = new Set(grants);
  return new Set(manifest.tools.filter((t) => !t.effects.every((e) => granted.has(e))).map((t) => t.name));
}

function checkSkills(dir: string, manifest: PluginManifest, diagnostics: DiagnosticList): string[] {
  const out: string[] = [];
  (manifest.skills ?? []).forEach((relative, i) => {
    const path = `/pablo/skills/${i}`;
    const normalized = normalize(relative);
    if (isAbsolute(relative) || normalized === ".." || normalized.startsWith(`..${sep}`)) {
      diagnostics.error(
        PluginCode.SKILLS_INVALID,
        `skills directory ${relative} must stay inside the package`,
        { path },
      );
      return;
    }
    let full = "";
    try {
      full = realpathSync(resolve(dir, normalized));
    } catch {
      full = "";
    }
    const inside = full !== "" && full.startsWith(realpathSync(dir) + sep);
    if (full !== "" && !inside) {
      diagnostics.error(
        PluginCode.SKILLS_INVALID,
        `skills directory ${relative} resolves outside the package`,
        { path },
      );
    } else if (!inside || !statSync(full).isDirectory()) {
      diagnostics.error(
        PluginCode.SKILLS_INVALID,
        `skills directory ${relative} does not exist in the package`,
        { path },
      );
    } else out.push(full);
  });
  return out;
}

async function importPlugin(
  file: string,
  manifest: PluginManifest,
  fresh: boolean,
  diagnostics: DiagnosticList,
): Promise<PabloPlugin | undefined> {
  let module: Record<string, unknown>;
  try {
    const url = pathToFileURL(file);
    if (fresh) url.search = `?check=${++freshCounter}`;
    module = (await import(url.href)) as Record<string, unknown>;
  } catch (error) {
    diagnostics.error(PluginCode.LOAD_FAILED, `importing the plugin module failed: ${messageOf(error)}`);
    return undefined;
  }
  const plugin = module["default"] ?? module["plugin"];
  if (!isPabloPlugin(plugin)) {
    diagnostics.error(
      PluginCode.NOT_A_PLUGIN,
      "the module's default export is not a plugin made with definePlugin",
    );
    return undefined;
  }
  if (plugin.apiVersion !== PLUGIN_API_VERSION) {
    diagnostics.error(
      PluginCode.API_VERSION_UNSUPPORTED,
      `the plugin targets plugin API ${String(plugin.apiVersion)}; this host supports ${PLUGIN_API_VERSION}`,
    );
    return undefined;
  }
  if (plugin.id !== manifest.id) {
    diagnostics.error(
      PluginCode.ID_MISMATCH,
      `the module's plugin ID ${plugin.id} differs from pablo.id ${manifest.id}`,
      {
        path: "/pablo/id",
      },
    );
    return undefined;
  }
  return plugin;
}

function checkOptions(plugin: PabloPlugin, options: unknown, diagnostics: DiagnosticList): unknown {
  const value = options ?? {};
  if (!plugin.optionsSchema) {
    const empty = value !== null && typeof value === "object" && Object.keys(value).length === 0;
    if (!empty)
      diagnostics.error(
        PluginCode.OPTIONS_INVALID,
        "the plugin takes no options, but the deployment gives some",
      );
    return value;
  }
  try {
    const validator = compileValidator(plugin.optionsSchema);
    if (validator.check(value)) return value;
    const issues = validator.issues(value, 5).map((issue) => `${issue.path} ${issue.message}`);
    diagnostics.error(PluginCode.OPTIONS_INVALID, `the plugin's options are invalid: ${issues.join("; ")}`);
  } catch (error) {
    diagnostics.error(
      PluginCode.OPTIONS_INVALID,
      `the plugin's optionsSchema does not compile: ${messageOf(error)}`,
    );
  }
  return value;
}

async function runSetup(
  plugin: PabloPlugin,
  manifest: PluginManifest,
  options: unknown,
  grants: readonly string[] | undefined,
  diagnostics: DiagnosticList,
): Promise<unknown[] | undefined> {
  const registered: unknown[] = [];
  const canRegister =
    grants === undefined
      ? manifest.permissions.includes("agent.tool.register")
      : grants.includes("agent.tool.register");
  let closed = false;
  const host = Object.freeze({
    pluginId: manifest.id,
    options,
    grants: Object.freeze([...(grants ?? manifest.permissions)]),
    registerTool: (tool: unknown) => {
      if (closed) throw new Error("registerTool called after setup finished");
      if (!canRegister) throw new Error("registerTool needs the agent.tool.register grant");
      registered.push(tool);
    },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const work = Promise.resolve().then(() => plugin.setup(host));
    work.catch(() => undefined);
    const timeout = new Promise<"timeout">((r) => {
      timer = setTimeout(() => r("timeout"), SETUP_TIMEOUT_MS);
    });
    if ((await Promise.race([work, timeout])) === "timeout") {
      diagnostics.error(
        PluginCode.SETUP_FAILED,
        `the plugin's setup did not finish within ${SETUP_TIMEOUT_MS} ms`,
      );
      return undefined;
    }
  } catch (error) {
    diagnostics.error(PluginCode.SETUP_FAILED, `the plugin's setup threw: ${messageOf(error)}`);
    return undefined;
  } finally {
    clearTimeout(timer);
    closed = true;
  }
  return registered;
}
