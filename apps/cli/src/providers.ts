import { join } from "node:path";
import type { Deployment, LimitsOptions } from "@pablo/config";
import { createFsTools, createScratchRoot, type FsOptions, FsOptionsSchema, ReviewStore } from "@pablo/fs";
import type { AuthorityLayer, CatalogDiagnostic, CredentialResolver, ToolProvider } from "@pablo/kernel";
import {
  commandRulesLayer,
  createShellTool,
  DEFAULT_SHELL_OPTIONS,
  type ShellOptions,
  ShellOptionsSchema,
} from "@pablo/shell";
import {
  type ActivatedSkill,
  activateSkills,
  allowedToolsLayer,
  type Discovery,
  discoverSkills,
  formatDiagnostic,
  resolveSkillsOptions,
  type SkillRoot,
  SkillsOptionsSchema,
  skillToolFor,
} from "@pablo/skills";
import Type, { type TSchema } from "typebox";
import { disabledToolLayer } from "./distribution.js";

/** The `[options.*]` sections this distribution's packages bring. */
export function distributionSections(): Record<string, TSchema> {
  // Every key of a section is optional in the file; packages fill defaults.
  return { fs: Type.Partial(FsOptionsSchema), shell: ShellOptionsSchema, skills: SkillsOptionsSchema };
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

/** Skills of a task: what discovery found and what the deployment activated. */
export interface TaskSkills {
  readonly roots: readonly SkillRoot[];
  readonly discovery: Discovery;
  readonly activated: readonly ActivatedSkill[];
}

/** The providers of one task, each fresh for it, and layers they add (an allowed-tools restriction). */
export interface OpenedProviders {
  readonly providers: ToolProvider[];
  readonly diagnostics: CatalogDiagnostic[];
  readonly layers: AuthorityLayer[];
  readonly skills: TaskSkills | undefined;
  close(): Promise<void>;
}

/** Thrown when a provider cannot admit the task (a required server, an activation that does not fit). */
export class AdmissionFailure extends Error {
  override readonly name = "AdmissionFailure";
}

export async function openProviders(context: ProviderContext): Promise<OpenedProviders> {
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
    options: withShellDeadline(
      shellOptions,
      context.deployment.options["limits"] as LimitsOptions | undefined,
    ),
    scratchDir: scratch.path,
  });
  const providers: ToolProvider[] = [
    { id: "fs", tools: () => fsTools },
    { id: "shell", tools: () => [shell] },
  ];
  const layers: AuthorityLayer[] = [];
  const skills = await openSkills(context.deployment.options["skills"]);
  if (skills) {
    const tool = skillToolFor(skills.roots, skills.discovery, {
      enabled: skills.options.tool,
      active: skills.activated,
      maxContextBytes: skills.options.maxContextBytes,
      maxSkillBytes: skills.options.maxSkillBytes,
    });
    if (tool) providers.push({ id: "skills", tools: () => [tool] });
    if (skills.options.restrictToAllowedTools) {
      const restriction = allowedToolsLayer(skills.activated, { alsoAllow: tool ? [tool.name] : [] });
      if (restriction.layer) layers.push(restriction.layer);
    }
  }
  return {
    providers,
    diagnostics: (skills?.discovery.diagnostics ?? [])
      .filter((d) => d.severity === "error")
      .map((d) => ({ source: "skills", code: d.code, message: formatDiagnostic(d) })),
    layers,
    skills: skills && { roots: skills.roots, discovery: skills.discovery, activated: skills.activated },
    close: async () => scratch.remove(),
  };
}

async function openSkills(section: unknown) {
  if (section === undefined) return undefined;
  const resolved = resolveSkillsOptions(section);
  if (!resolved.ok) throw new AdmissionFailure(`[options.skills]: ${resolved.issues.join("; ")}`);
  const options = resolved.options;
  const discovery = await discoverSkills(options.roots, { maxSkillBytes: options.maxSkillBytes });
  const activation = await activateSkills(options.activate, discovery, {
    maxContextBytes: options.maxContextBytes,
    maxSkillBytes: options.maxSkillBytes,
  });
  const failed = activation.diagnostics.filter((d) => d.severity === "error");
  if (failed.length > 0) {
    throw new AdmissionFailure(
      `skill activation failed: ${failed.map((d) => formatDiagnostic(d)).join("; ")}`,
    );
  }
  return { options, roots: options.roots, discovery, activated: activation.context };
}

/** Review snapshots live in the state directory, never the workspace. */
export function reviewStore(stateDir: string): ReviewStore {
  return new ReviewStore(join(stateDir, "reviews"));
}

/**
 * The shell's own deadline never exceeds the host limit `[options.limits] shell_deadline_ms`, and
 * the default timeout never exceeds the deadline.
 */
export function withShellDeadline(
  options: ShellOptions | undefined,
  limits: LimitsOptions | undefined,
): ShellOptions {
  const own = options?.deadline_ms ?? DEFAULT_SHELL_OPTIONS.deadlineMs;
  const deadline = Math.min(own, limits?.shell_deadline_ms ?? own);
  const timeout = Math.min(options?.default_timeout_ms ?? DEFAULT_SHELL_OPTIONS.defaultTimeoutMs, deadline);
  return { ...(options ?? {}), deadline_ms: deadline, default_timeout_ms: timeout };
}
