import { dirname } from "node:path";
import { type ActionsOptions, ActionsOptionsSchema, createActionsProvider } from "@pablo/actions";
import { type CatalogDiagnostic, compileValidator, type ToolProvider } from "@pablo/kernel";
import { AdmissionFailure } from "./admission.js";

export { ActionsOptionsSchema };

export interface OpenedActions {
  readonly providers: ToolProvider[];
  /** Actions refused (unsigned, tampered, untrusted key, invalid) and allow_interpreter warnings. */
  readonly diagnostics: CatalogDiagnostic[];
}

const validate = compileValidator(ActionsOptionsSchema);

/**
 * Opens `[options.actions]`: loads the catalogs against the trusted keys (paths relative to the
 * deployment file) and offers one `action.NAME` tool per action that verified. A refused action is
 * a catalog diagnostic naming it; an unreadable key refuses admission.
 */
export function openActions(section: unknown, deploymentFile: string): OpenedActions {
  if (section === undefined) return { providers: [], diagnostics: [] };
  if (!validate.check(section)) {
    const issue = validate.issues(section, 1)[0];
    throw new AdmissionFailure(`[options.actions]: ${issue?.path} ${issue?.message}`, "INVALID_OPTIONS");
  }
  let opened: ReturnType<typeof createActionsProvider>;
  try {
    opened = createActionsProvider(section as ActionsOptions, dirname(deploymentFile));
  } catch (error) {
    throw new AdmissionFailure(
      `[options.actions]: ${error instanceof Error ? error.message : String(error)}`,
      "INVALID_OPTIONS",
    );
  }
  return {
    providers: [opened.provider],
    diagnostics: opened.diagnostics.map((d) => ({
      source: `options.actions:${d.file}`,
      ...(d.action ? { tool: `action.${d.action}` } : {}),
      code: d.code,
      message: d.message,
    })),
  };
}
