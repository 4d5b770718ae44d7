/** Codes of plugin diagnostics. Stable: tests and hosts branch on them. */
export const PluginCode = {
  INVALID_ENTRY: "INVALID_ENTRY",
  PLUGIN_NOT_FOUND: "PLUGIN_NOT_FOUND",
  PACKAGE_JSON_INVALID: "PACKAGE_JSON_INVALID",
  MANIFEST_MISSING: "MANIFEST_MISSING",
  MANIFEST_INVALID: "MANIFEST_INVALID",
  VERSION_MISMATCH: "VERSION_MISMATCH",
  GRANT_MISSING: "GRANT_MISSING",
  PERMISSION_UNDECLARED: "PERMISSION_UNDECLARED",
  ENTRY_MISSING: "ENTRY_MISSING",
  LOAD_FAILED: "LOAD_FAILED",
  NOT_A_PLUGIN: "NOT_A_PLUGIN",
  API_VERSION_UNSUPPORTED: "API_VERSION_UNSUPPORTED",
  ID_MISMATCH: "ID_MISMATCH",
  OPTIONS_INVALID: "OPTIONS_INVALID",
  SETUP_FAILED: "SETUP_FAILED",
  UNDECLARED_TOOL: "UNDECLARED_TOOL",
  MISSING_TOOL: "MISSING_TOOL",
  DUPLICATE_TOOL: "DUPLICATE_TOOL",
  INVALID_TOOL: "INVALID_TOOL",
  INVALID_TOOL_NAME: "INVALID_TOOL_NAME",
  OPEN_SCHEMA: "OPEN_SCHEMA",
  SCHEMA_MISMATCH: "SCHEMA_MISMATCH",
  EFFECTS_MISMATCH: "EFFECTS_MISMATCH",
  RISK_MISMATCH: "RISK_MISMATCH",
  RISK_DEFAULTED: "RISK_DEFAULTED",
  NAME_SHORTENED: "NAME_SHORTENED",
  NAME_COLLISION: "NAME_COLLISION",
  UNDECLARED_SKILLS: "UNDECLARED_SKILLS",
  SKILLS_INVALID: "SKILLS_INVALID",
  PACKAGE_LAYOUT: "PACKAGE_LAYOUT",
  PACK_FAILED: "PACK_FAILED",
  /** A dependency uses a workspace-only specifier (`workspace:`, `catalog:`) npm would publish as is. */
  UNPUBLISHABLE_DEPENDENCY: "UNPUBLISHABLE_DEPENDENCY",
  SCAFFOLD_FAILED: "SCAFFOLD_FAILED",
  /** `pablo plugin scaffold`: the name is not a valid npm package name. */
  INVALID_PACKAGE_NAME: "INVALID_PACKAGE_NAME",
  /** `pablo plugin scaffold`: the target directory already holds files. */
  DIRECTORY_NOT_EMPTY: "DIRECTORY_NOT_EMPTY",
} as const;

export type PluginCode = (typeof PluginCode)[keyof typeof PluginCode];

/**
 * A finding about one plugin. An `error` refuses the plugin (the loader registers none of its
 * tools); a `warning` is reported and the plugin loads.
 */
export interface PluginDiagnostic {
  /** The deployment's entry name (`[options.plugins.NAME]`), or the package directory for checks. */
  readonly plugin: string;
  readonly pluginId?: string;
  readonly severity: "error" | "warning";
  readonly code: PluginCode;
  readonly message: string;
  /** The tool concerned, by its short name. */
  readonly tool?: string;
  /** Where: a JSON pointer into package.json (`/pablo/tools/0/risk`) or a file. */
  readonly path?: string;
}

/** Collects diagnostics for one plugin. */
export class DiagnosticList {
  readonly items: PluginDiagnostic[] = [];
  readonly #plugin: string;
  pluginId: string | undefined;

  constructor(plugin: string) {
    this.#plugin = plugin;
  }

  error(code: PluginCode, message: string, where: { tool?: string; path?: string } = {}): void {
    this.#push("error", code, message, where);
  }

  warn(code: PluginCode, message: string, where: { tool?: string; path?: string } = {}): void {
    this.#push("warning", code, message, where);
  }

  get failed(): boolean {
    return this.items.some((d) => d.severity === "error");
  }

  #push(
    severity: "error" | "warning",
    code: PluginCode,
    message: string,
    where: { tool?: string; path?: string },
  ): void {
    this.items.push({
      plugin: this.#plugin,
      ...(this.pluginId ? { pluginId: this.pluginId } : {}),
      severity,
      code,
      message,
      ...(where.tool ? { tool: where.tool } : {}),
      ...(where.path ? { path: where.path } : {}),
    });
  }
}

export function messageOf(error: unknown, max = 500): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
