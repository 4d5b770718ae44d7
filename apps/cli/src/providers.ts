import { type A2aOptions, A2aOptionsSchema } from "@pablo/a2a/options";
import { ActionsOptionsSchema } from "@pablo/actions/options";
import {
  type AgentDeploymentOptions,
  AgentOptionsSchema,
  agentProviderFromOptions,
} from "@pablo/agent/provider";
import {
  type BrowserOptions,
  BrowserOptionsSchema,
  browserCandidates,
  findBrowser,
  resolveBrowserOptions,
} from "@pablo/browser";
import { ConfigErrorCode, type Deployment, type LimitsOptions } from "@pablo/config";
import { createFsTools, createScratchRoot, type FsOptions, FsOptionsSchema } from "@pablo/fs";
import {
  type AuthorityLayer,
  type CatalogDiagnostic,
  type CredentialResolver,
  PabloError,
  type PermissionBroker,
  type PermissionMode,
  StringRecord,
  type ToolDefinition,
  type ToolProvider,
} from "@pablo/kernel";
import type { McpAuthorizationState } from "@pablo/mcp";
import { type McpOptions, McpOptionsSchema, mcpPolicyLayers } from "@pablo/mcp/options";
import { createPluginAuthorTools, type LoadedPlugins, PluginEntryOptionsSchema } from "@pablo/plugins";
import {
  commandRulesLayer,
  createShellTool,
  DEFAULT_SHELL_OPTIONS,
  type SandboxOptions,
  SandboxOptionsSchema,
  type ShellOptions,
  ShellOptionsSchema,
} from "@pablo/shell";
import { SkillsOptionsSchema } from "@pablo/skills/options";
import Type, { type TSchema } from "typebox";
import { ConfigFailure } from "./config-failure.js";
import { CliErrorCode } from "./error-codes.js";
import { disabledToolLayer } from "./layers.js";
import type { OpenedSkills, TaskSkills } from "./provider-skills.js";
import { planSandbox, type SandboxPlan } from "./sandbox.js";
import { sessionReviewStore, type TaskStorage } from "./storage.js";

export { AdmissionFailure } from "./admission.js";
export type { TaskSkills } from "./provider-skills.js";

/**
 * The providers that bring heavy dependencies (an MCP or A2A SDK, database drivers, the skills'
 * SKILL.md and YAML parsers, the browser's page runner and file server, the plugin loader and its
 * signature checks), each loaded only when the
 * deployment configures it (or, for the browser, when one is installed): listing the tools of a
 * deployment without them never loads their code. The one lazy boundary per provider.
 */
const load = {
  browser: () => import("./provider-browser.js"),
  mcp: () => import("./provider-mcp.js"),
  a2a: () => import("./provider-a2a.js"),
  actions: () => import("./provider-actions.js"),
  skills: () => import("./provider-skills.js"),
  plugins: () => import("./provider-plugins.js"),
};

const NO_PLUGINS: Omit<LoadedPlugins, "loaded"> = { tools: [], skills: [], diagnostics: [] };

const NO_SKILLS: OpenedSkills = { skills: undefined, providers: [], layers: [], diagnostics: [] };

/** The `[options.*]` sections this distribution's packages bring. */
export function distributionSections(): Record<string, TSchema> {
  return {
    fs: FsOptionsSchema,
    shell: ShellOptionsSchema,
    sandbox: SandboxOptionsSchema,
    browser: BrowserOptionsSchema,
    skills: SkillsOptionsSchema,
    mcp: McpOptionsSchema,
    a2a: A2aOptionsSchema,
    actions: ActionsOptionsSchema,
    agent: AgentOptionsSchema,
    plugins: StringRecord(Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }), PluginEntryOptionsSchema, {
      description: "[options.plugins.NAME]: the plugins this distribution loads; nothing else is scanned.",
    }),
  };
}

/** Authority layers that packages derive from their own sections. */
export function sectionLayers(deployment: Deployment): AuthorityLayer[] {
  const shell = deployment.options["shell"] as ShellOptions | undefined;
  const mcp = deployment.options["mcp"] as McpOptions | undefined;
  const layers = [commandRulesLayer("deployment.shell", shell?.commands)];
  if (shell?.enabled === false) {
    layers.push(disabledToolLayer("deployment.shell-enabled", "shell.run", "options.shell.enabled"));
  }
  layers.push(...mcpPolicyLayers(mcp?.policies ?? []));
  return layers;
}

export interface ProviderContext {
  readonly deployment: Deployment;
  readonly workspace: string;
  readonly storage: TaskStorage;
  readonly sessionId: string;
  readonly credentials: CredentialResolver;
  readonly bindings: Readonly<Record<string, string>>;
  /** The task's layers: MCP servers they deny are never started. */
  readonly layers: readonly AuthorityLayer[];
  readonly signal?: AbortSignal;
  /** `pablo run --seed DIR`: what a virtual sandbox starts from. */
  readonly seed?: string;
  /** The session's permission mode: bubblewrap mounts the workspace read-only under `read-only`. */
  readonly permission?: PermissionMode;
  /** Who answers the task's cards (terminal, ACP client); absent when nobody can. */
  readonly broker?: PermissionBroker;
}

/** The providers of one task, each fresh for it, and the layers they add. */
export interface OpenedProviders {
  readonly providers: ToolProvider[];
  diagnostics(): CatalogDiagnostic[];
  readonly layers: AuthorityLayer[];
  /** The authorization state of each `auth = "oauth"` MCP server (`tools --explain`, `policy check`). */
  readonly mcpAuthorization: readonly McpAuthorizationState[];
  readonly skills: TaskSkills | undefined;
  /** The session's scratch directory (created on first write), advertised to the model. */
  readonly scratchDir: string;
  /** The task's `[options.sandbox]`: what attached, the containment in force, a virtual fs's changes. */
  readonly sandbox: SandboxPlan;
  close(): Promise<void>;
}

/**
 * Opens the task's providers: the filesystem and shell tools, the plugin author tools, the MCP
 * servers, the plugins the deployment lists (resolved from the deployment file's directory) and
 * the skills. Nothing is scanned that the configuration does not name.
 */
export async function openProviders(context: ProviderContext): Promise<OpenedProviders> {
  const { deployment } = context;
  const fsOptions = deployment.options["fs"] as Partial<FsOptions> | undefined;
  const scratch = createScratchRoot(context.storage.dataDir, context.sessionId);
  const sandboxOptions = deployment.options["sandbox"] as SandboxOptions | undefined;
  const sandbox = configured(deployment, "options.sandbox", () =>
    planSandbox(sandboxOptions, {
      workspace: context.workspace,
      ...(context.seed ? { seed: context.seed } : {}),
    }),
  );
  // A virtual sandbox keeps every read and write in memory: no scratch, no review snapshots, and
  // none of the tools that would touch the disk (the shell, the plugin author tools, the browser).
  const onDisk = sandbox.io === undefined;
  const fsTools = await createFsTools({
    workspace: context.workspace,
    ...(onDisk
      ? { scratch, reviews: sessionReviewStore(context.storage, context.sessionId) }
      : { io: sandbox.io }),
    ...(fsOptions ? { options: fsOptions } : {}),
  });
  const shell = sandbox.attachShell
    ? [
        configured(deployment, "options.shell", () =>
          createShellTool({
            workspace: context.workspace,
            options: withShellDeadline(
              deployment.options["shell"] as ShellOptions | undefined,
              deployment.options["limits"] as LimitsOptions | undefined,
            ),
            scratchDir: scratch.path,
            ...(sandboxOptions ? { sandbox: sandboxOptions } : {}),
            ...(context.permission ? { permission: context.permission } : {}),
          }),
        ),
      ]
    : [];
  const authorTools = onDisk
    ? createPluginAuthorTools({ workspace: context.workspace, scratch: scratch.path })
    : [];
  const browser = onDisk
    ? await openBrowser(deployment, context.workspace, scratch.path)
    : { tools: [], diagnostics: [] };
  const builtIn: ToolDefinition[] = [...fsTools, ...shell, ...authorTools, ...browser.tools];
  const actionsSection = deployment.options["actions"];
  const mcpSection = deployment.options["mcp"] as McpOptions | undefined;
  const a2aSection = deployment.options["a2a"] as A2aOptions | undefined;
  const actions =
    actionsSection === undefined
      ? { providers: [], diagnostics: [] }
      : (await load.actions()).openActions(actionsSection, deployment.file);
  const mcp = hasEntries(mcpSection?.servers)
    ? await (await load.mcp()).openMcp(mcpSection, {
        ...context,
        questionTimeoutMs: permissionTimeout(deployment),
      })
    : { providers: [], diagnostics: () => [], authorization: [], close: async () => undefined };
  const a2a = hasEntries(a2aSection?.remotes)
    ? await (await load.a2a()).openA2a(a2aSection, context)
    : { providers: [], diagnostics: () => [], handoff: false };
  const plugins = hasEntries(deployment.options["plugins"] as Record<string, unknown> | undefined)
    ? await (await load.plugins()).openPlugins(deployment, builtIn)
    : NO_PLUGINS;
  const pluginRoots = plugins.skills.map((s) => ({
    name: `plugin-${s.pluginId.replace(/[^a-z0-9-]/g, "-")}`,
    dir: s.dir,
  }));
  const skillsSection = deployment.options["skills"];
  const skills =
    skillsSection === undefined && pluginRoots.length === 0
      ? NO_SKILLS
      : await (await load.skills()).openSkills(skillsSection, pluginRoots);
  const agent = agentProviderFromOptions(
    deployment.options["agent"] as AgentDeploymentOptions | undefined,
    context.workspace,
    { handoff: a2a.handoff },
  );
  // Delegate tool names a definition cannot have are dropped (seed 001 10.2): say which, where.
  const agentDiagnostics = agent.diagnostics.map((d) => ({
    source: `options.agent.subagents.${d.subagent}`,
    ...(d.tool ? { tool: d.tool } : {}),
    code: d.code,
    message: d.message,
  }));
  const pluginDiagnostics = plugins.diagnostics
    .filter((d) => d.severity === "error")
    .map((d) => ({
      source: `plugin/${d.plugin}`,
      ...(d.tool ? { tool: d.tool } : {}),
      code: d.code,
      message: d.message,
    }));
  return {
    providers: [
      { id: "fs", tools: () => fsTools },
      ...(shell.length > 0 ? [{ id: "shell", tools: () => shell }] : []),
      { id: "plugin-author", tools: () => authorTools },
      ...(browser.tools.length > 0 ? [{ id: "browser", tools: () => browser.tools }] : []),
      ...mcp.providers,
      ...actions.providers,
      ...a2a.providers,
      ...(plugins.tools.length > 0 ? [{ id: "plugins", tools: () => plugins.tools }] : []),
      ...skills.providers,
      agent,
    ],
    diagnostics: () => [
      ...mcp.diagnostics(),
      ...actions.diagnostics,
      ...a2a.diagnostics(),
      ...pluginDiagnostics,
      ...skills.diagnostics,
      ...agentDiagnostics,
      ...browser.diagnostics,
    ],
    layers: skills.layers,
    mcpAuthorization: mcp.authorization,
    skills: skills.skills,
    scratchDir: scratch.path,
    sandbox,
    close: async () => {
      await mcp.close();
      scratch.remove();
    },
  };
}

function hasEntries(record: Readonly<Record<string, unknown>> | undefined): boolean {
  return record !== undefined && Object.keys(record).length > 0;
}

/** Code of the note that BrowserPreview is not attached because no browser was found. */
export const BROWSER_UNAVAILABLE = CliErrorCode.BROWSER_UNAVAILABLE;

/**
 * BrowserPreview attaches only where a browser is installed at an absolute path (never found
 * through PATH) and `[options.browser] enabled` is not false; otherwise `--explain` says why.
 */
async function openBrowser(
  deployment: Deployment,
  workspace: string,
  scratchDir: string,
): Promise<{ tools: ToolDefinition[]; diagnostics: CatalogDiagnostic[] }> {
  const section = deployment.options["browser"] as BrowserOptions | undefined;
  const options = configured(deployment, "options.browser", () => resolveBrowserOptions(section));
  const note = (message: string) => ({
    tools: [],
    diagnostics: [{ source: "browser", tool: "browser.preview", code: BROWSER_UNAVAILABLE, message }],
  });
  if (!options.enabled) return note("BrowserPreview is off: [options.browser] enabled = false");
  const found = findBrowser(browserCandidates(options.path));
  if (!found.ok) return note(`BrowserPreview is not attached: ${found.reason}`);
  const tool = (await load.browser()).openBrowserPreview({
    workspace,
    scratchDir,
    browserPath: found.path,
    section,
  });
  return { tools: [tool], diagnostics: [] };
}

/**
 * Builds a package's tools from its section; an option the package refuses (an unknown shell ID,
 * a bash path that is not executable) is a configuration error located at the section, exit 2.
 */
function configured<T>(deployment: Deployment, keyPath: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof PabloError)) throw error;
    throw new ConfigFailure([
      {
        code: ConfigErrorCode.INVALID_VALUE,
        file: deployment.file,
        line: 0,
        keyPath,
        message: `${error.code}: ${error.message}`,
      },
    ]);
  }
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

/** `[options.permission] timeout_ms`: a tool server's question waits as long as a card does. */
function permissionTimeout(deployment: Deployment): number | undefined {
  const permission = deployment.options["permission"] as { timeout_ms?: number } | undefined;
  return permission?.timeout_ms;
}
