import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { AnyToolDefinition, ToolProvider } from "@pablo/kernel";
import { actionTool } from "./action-tool.js";
import { type CatalogDiagnostic, loadCatalogs } from "./load-catalog.js";
import type { LoadedAction } from "./loaded-action.js";
import type { ActionsOptions } from "./options.js";
import { type TrustedKey, trustedKey } from "./signing.js";

export interface ActionsProvider {
  readonly provider: ToolProvider;
  readonly actions: readonly LoadedAction[];
  readonly tools: readonly AnyToolDefinition[];
  readonly diagnostics: readonly CatalogDiagnostic[];
}

/**
 * The provider of a deployment's actions: the catalogs loaded against the trusted keys, one tool
 * per action that verified. Paths are resolved against `baseDir`. A key file that cannot be read
 * or is not an Ed25519 public key is a configuration fault and throws.
 */
export function createActionsProvider(options: ActionsOptions, baseDir: string): ActionsProvider {
  const keys: TrustedKey[] = options.trusted_keys.map((file) =>
    trustedKey(readFileSync(resolve(baseDir, file), "utf8")),
  );
  const loaded = loadCatalogs(
    options.catalogs.map((file) => resolve(baseDir, file)),
    keys,
  );
  const tools = loaded.actions.map(actionTool);
  return {
    provider: { id: "actions", tools: () => tools },
    actions: loaded.actions,
    tools,
    diagnostics: loaded.diagnostics,
  };
}
