import { defineTool, ok, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";
import type { AgentControlHub } from "./hub.js";
import { ControlToolName } from "./names.js";
import { aloneInBatch, withRuntime } from "./with-runtime.js";

const NoInput = Type.Object({}, { additionalProperties: false });

/** new_context: compact at the next turn boundary. Changes no environment state; every mode. */
export function newContextTool(hub: AgentControlHub): ToolDefinition {
  return defineTool({
    name: ControlToolName.NEW_CONTEXT,
    providerName: "new_context",
    summary: "Start a new context window at the next turn boundary",
    description:
      "Start a new context window at the next turn boundary: the conversation is replaced by your task and a short summary of the work so far. Takes no parameters and changes nothing in the workspace. Use it when the context is long and mostly no longer needed.",
    inputSchema: NoInput,
    risk: "low",
    effects: [],
    category: "control",
    mutates: false,
    execute: async (_args, ctx) =>
      withRuntime(hub, ctx, "new_context", (runtime) => {
        runtime.requestCompaction();
        return ok({ scheduled: true, note: "The context will be compacted before your next turn." });
      }),
  });
}

/** EnterPlanMode / EnterGoalMode: Agent only, alone in the batch, host-validated. */
export function enterModeTool(hub: AgentControlHub, to: "plan" | "goal"): ToolDefinition {
  const providerName = to === "plan" ? "EnterPlanMode" : "EnterGoalMode";
  const submit = to === "plan" ? "SubmitPlan" : "SubmitGoal";
  return defineTool({
    name: to === "plan" ? ControlToolName.ENTER_PLAN_MODE : ControlToolName.ENTER_GOAL_MODE,
    providerName,
    summary: to === "plan" ? "Switch from Agent to Plan mode" : "Switch from Agent to Goal mode",
    description:
      to === "plan"
        ? `Switch this session from Agent to Plan mode to investigate and propose a plan before changing anything. In Plan mode file writes are unavailable; finish with ${submit}. Must be the only tool call in its response.`
        : `Switch this session from Agent to Goal mode to agree on a goal and its acceptance criteria before working. In Goal mode file writes are unavailable; finish with ${submit}. Must be the only tool call in its response.`,
    inputSchema: NoInput,
    risk: "low",
    effects: [],
    category: "agent-control",
    mutates: false,
    execute: async (_args, ctx) =>
      withRuntime(
        hub,
        ctx,
        providerName,
        (runtime) => aloneInBatch(runtime, ctx, providerName) ?? runtime.enterMode(to, ctx),
      ),
  });
}
