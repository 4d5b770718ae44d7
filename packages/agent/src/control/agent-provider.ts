import type { ToolDefinition, ToolProvider } from "@pablo/kernel";
import { ToolSearch, type ToolSearchOptions } from "@pablo/tool-search";
import { type ChildConfig, type ChildOptions, resolveChildConfig } from "../children/child-config.js";
import {
  type ResolvedSubagent,
  resolveSubagents,
  type SubagentDefinition,
  type SubagentDiagnostic,
} from "../children/subagents.js";
import type { AgentOptions } from "./agent-options.js";
import { askTool } from "./ask-tool.js";
import { childHandoffTool, childTools } from "./child-tools.js";
import { AgentControlHub } from "./hub.js";
import { enterModeTool, newContextTool } from "./mode-tools.js";
import { submitTool } from "./submit-tools.js";
import { taskTool } from "./task-tool.js";

export interface AgentProviderOptions {
  /** Canonical absolute workspace path; plans and goals are saved under its `.pablo/`. */
  readonly workspace: string;
  /** Task delegates; without any, Task is not registered. */
  readonly subagents?: readonly SubagentDefinition[];
  /** Supervised children; without it, the child tools are not registered. */
  readonly children?: ChildOptions;
  /** ToolSearch over the catalog's deferred tools (default on); `false` registers none. */
  readonly toolSearch?: ToolSearchOptions | false;
  /** Extra system instructions for every run. */
  readonly instructions?: string;
  /** Offer child_handoff without children: the host has tools that retain results (A2A remotes). */
  readonly handoff?: boolean;
}

/** The agent's tool provider, with the handles a loop needs to serve its tools. */
export interface AgentToolProvider extends ToolProvider {
  readonly id: "agent";
  readonly hub: AgentControlHub;
  readonly toolSearch: ToolSearch | undefined;
  readonly subagents: readonly ResolvedSubagent[];
  readonly children: ChildConfig | undefined;
  readonly instructions: string | undefined;
  /** Subagent tools that were dropped, and why. */
  readonly diagnostics: readonly SubagentDiagnostic[];
}

export interface ControlToolOptions {
  readonly workspace: string;
  readonly subagents?: readonly ResolvedSubagent[];
  readonly children?: boolean;
  /** Offer child_handoff even without children, for results other tools retain (remote A2A artifacts). */
  readonly handoff?: boolean;
}

/**
 * The control tools as kernel definitions: new_context, EnterPlanMode, EnterGoalMode,
 * SubmitPlan, SubmitGoal, asktool, plus Task when there are subagents and the child tools when
 * children are enabled. They act through `hub`, on the loop that runs the calling session.
 */
export function createControlTools(hub: AgentControlHub, options: ControlToolOptions): ToolDefinition[] {
  return [
    newContextTool(hub),
    enterModeTool(hub, "plan"),
    enterModeTool(hub, "goal"),
    submitTool(hub, options.workspace, "plan"),
    submitTool(hub, options.workspace, "goal"),
    askTool(hub),
    ...((options.subagents?.length ?? 0) > 0 ? [taskTool(hub, options.subagents ?? [])] : []),
    ...(options.children ? childTools(hub) : options.handoff ? [childHandoffTool(hub)] : []),
  ];
}

/**
 * A provider for the host's catalog: the control tools and ToolSearch. Pass the same object to
 * `runAgent({ control })` (or let `findAgentProvider` find it among a task's providers).
 */
export function createAgentProvider(options: AgentProviderOptions): AgentToolProvider {
  const hub = new AgentControlHub();
  const resolved = resolveSubagents(options.subagents ?? []);
  const children = options.children ? resolveChildConfig(options.children) : undefined;
  const toolSearch = options.toolSearch === false ? undefined : new ToolSearch(options.toolSearch ?? {});
  const tools = [
    ...createControlTools(hub, {
      workspace: options.workspace,
      subagents: resolved.items,
      children: options.children !== undefined,
      ...(options.handoff ? { handoff: true } : {}),
    }),
    ...(toolSearch ? [toolSearch.tool] : []),
  ];
  return {
    id: "agent",
    hub,
    toolSearch,
    subagents: resolved.items,
    children,
    instructions: options.instructions,
    diagnostics: resolved.diagnostics,
    tools: () => tools,
  };
}

/** The provider for a deployment's `[options.agent]` section. */
export function agentProviderFromOptions(
  options: AgentOptions | undefined,
  workspace: string,
  host: { readonly handoff?: boolean } = {},
): AgentToolProvider {
  const subagents: SubagentDefinition[] = Object.entries(options?.subagents ?? {}).map(([name, s]) => ({
    name,
    description: s.description,
    ...(s.tools !== undefined ? { tools: s.tools } : {}),
    ...(s.instructions !== undefined ? { instructions: s.instructions } : {}),
  }));
  const c = options?.children;
  const children: ChildOptions | undefined = c?.enabled
    ? {
        ...(c.max_concurrent !== undefined ? { maxConcurrent: c.max_concurrent } : {}),
        ...(c.tools !== undefined ? { tools: c.tools } : {}),
        ...(c.instructions !== undefined ? { instructions: c.instructions } : {}),
      }
    : undefined;
  return createAgentProvider({
    workspace,
    subagents,
    ...(children ? { children } : {}),
    ...(options?.instructions ? { instructions: options.instructions } : {}),
    ...(host.handoff ? { handoff: true } : {}),
  });
}

/** Finds the agent provider among a task's providers. */
export function findAgentProvider(providers: readonly ToolProvider[]): AgentToolProvider | undefined {
  return providers.find(
    (p): p is AgentToolProvider => p.id === "agent" && "hub" in p && p.hub instanceof AgentControlHub,
  );
}
