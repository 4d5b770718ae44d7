import { join } from "node:path";
import type { Deployment } from "@pablo/config";
import { createFsTools, createScratchRoot, type FsOptions, FsOptionsSchema, ReviewStore } from "@pablo/fs";
import type { AuthorityLayer, CatalogDiagnostic, CredentialResolver, ToolProvider } from "@pablo/kernel";
import { commandRulesLayer, createShellTool, type ShellOptions, ShellOptionsSchema } from "@pablo/shell";
import Type, { type TSchema } from "typebox";
import { disabledToolLayer } from "./distribution.js";

/** The `[options.*]` sections this distribution's packages bring. */
export function distributionSections(): Record<string, TSchema> {
  // Every key of a section is optional in the file; packages fill defaults.
  return { fs: Type.Partial(FsOptionsSchema), shell: ShellOptionsSchema };
}

/** Authority layers that packages derive from their own sections. */
export function sectionLayers(deployment: Deployment): AuthorityLayer[] {
  const layers: AuthorityLayer[] = [];
  const shell = deployment.options["shell"] as ShellOptions | undefined;
  layers.push(commandRulesLayer("deployment.shell", shell?.commands));
  if (shell?.enabled === false)
    layers.push(disabledToolLayer("deployment.shell-enabled", "shell.run", "options.shell.enabled"));
  return layers;
}

export interface ProviderContext {
  readonly deployment: Deployment;
  readonly workspace: string;
  readonly stateDir: string;
  readonly sessionId: string;
  readonly credentials: CredentialResolver;
  readonly bindings: Readonly<Record<string, string>>;
}

/** The tool providers of one task, each fresh for it. */
export async function openProviders(context: ProviderContext): Promise<{
  providers: ToolProvider[];
  diagnostics: CatalogDiagnostic[];
  close(): Promise<void>;
}> {
  const fsOptions = context.deployment.options["fs"] as Partial<FsOptions> | undefined;
  const shellOptions = context.deployment.options["shell"] as ShellOptions | undefined;
  const scratch = createScratchRoot(join(context.stateDir, "data"), context.sessionId);
  const reviews = reviewStore(context.stateDir);
  const fsTools = await createFsTools({
    workspace: context.workspace,
    scratch,
    reviews,
    ...(fsOptions ? { options: fsOptions } : {}),
  });
  const shell = createShellTool({
    workspace: context.workspace,
    ...(shellOptions ? { options: shellOptions } : {}),
    scratchDir: scratch.path,
  });
  return {
    providers: [
      { id: "fs", tools: () => fsTools },
      { id: "shell", tools: () => [shell] },
    ],
    diagnostics: [],
    close: async () => scratch.remove(),
  };
}

/** Review snapshots live in the state directory, never the workspace. */
export function reviewStore(stateDir: string): ReviewStore {
  return new ReviewStore(join(stateDir, "reviews"));
}
