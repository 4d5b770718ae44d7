/** Native names of the agent's control tools. */
export const ControlToolName = {
  NEW_CONTEXT: "agent.new-context",
  ENTER_PLAN_MODE: "agent.enter-plan-mode",
  ENTER_GOAL_MODE: "agent.enter-goal-mode",
  SUBMIT_PLAN: "agent.submit-plan",
  SUBMIT_GOAL: "agent.submit-goal",
  ASK: "agent.ask",
  TASK: "agent.task",
  CHILD_START: "agent.child.start",
  CHILD_WAIT: "agent.child.wait",
  CHILD_HANDOFF: "agent.child.handoff",
} as const;

/** Tools that must be the only call in their assistant batch (seed 001, 10.1). */
export const EXCLUSIVE_TOOLS: ReadonlySet<string> = new Set([
  ControlToolName.ENTER_PLAN_MODE,
  ControlToolName.ENTER_GOAL_MODE,
  ControlToolName.SUBMIT_PLAN,
  ControlToolName.SUBMIT_GOAL,
]);

/** Error codes the agent package adds (the kernel's codes keep their meanings). */
export const AgentErrorCode = {
  /** A tool that must stand alone shared its assistant batch with other calls. */
  BATCH_EXCLUSIVE: "BATCH_EXCLUSIVE",
  /** A call was not run because its batch held a call that must stand alone. */
  BATCH_REFUSED: "BATCH_REFUSED",
  /** A deferred tool was called before ToolSearch loaded it. */
  TOOL_NOT_LOADED: "TOOL_NOT_LOADED",
  /** A control tool was called outside a running agent loop, or from the wrong state. */
  AGENT_STATE: "AGENT_STATE",
} as const;

export type AgentErrorCode = (typeof AgentErrorCode)[keyof typeof AgentErrorCode];

declare module "@pablo/kernel" {
  interface ErrorCodeRegistry extends Record<AgentErrorCode, true> {}
}

/** Codes of the diagnostics `resolveSubagents` reports about Task delegates (never tool results). */
export const SubagentCode = {
  /** A second definition of a delegate name; the first one stands. */
  SUBAGENT_DUPLICATE: "SUBAGENT_DUPLICATE",
  /** A tool no delegate can be given (plugin tools, Skill, ToolSearch, Task, ...) was left out. */
  SUBAGENT_TOOL_DROPPED: "SUBAGENT_TOOL_DROPPED",
} as const;

export type SubagentCode = (typeof SubagentCode)[keyof typeof SubagentCode];
