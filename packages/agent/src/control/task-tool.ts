import { defineTool, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";
import type { ResolvedSubagent } from "../children/subagents.js";
import type { AgentControlHub } from "./hub.js";
import { ControlToolName } from "./names.js";
import { withRuntime } from "./with-runtime.js";

/**
 * Task (seed 001, 10.2): runs a named delegate on a sub-task and returns its answer. Agent mode
 * only. The delegate runs in its own session over the same catalog, narrowed to its definition's
 * tools; its permission requests carry its name, and every call it makes is audited.
 */
export function taskTool(hub: AgentControlHub, subagents: readonly ResolvedSubagent[]): ToolDefinition {
  const names = subagents.map((s) => s.name);
  const list = subagents
    .map((s) => `- ${s.name}: ${s.description} (tools: ${s.grants.join(", ")})`)
    .join("\n");
  const Input = Type.Object(
    {
      subagent: Type.Union(
        names.map((n) => Type.Literal(n)),
        { description: "Which delegate runs the sub-task." },
      ),
      prompt: Type.String({
        minLength: 1,
        maxLength: 100_000,
        description: "The complete sub-task, with every detail the delegate needs.",
      }),
    },
    { additionalProperties: false },
  );
  return defineTool({
    name: ControlToolName.TASK,
    providerName: "Task",
    summary: "Delegate a bounded sub-task to a subagent",
    description: `Delegate a bounded sub-task to a subagent, which works with only its own tools and returns its final answer. Delegates:\n${list}`,
    inputSchema: Input,
    risk: "low",
    effects: ["child"],
    category: "agent-control",
    mutates: false,
    accesses: (args) => [{ dimension: "child", value: `task:${String(args.subagent)}` }],
    execute: async (args, ctx) =>
      withRuntime(hub, ctx, "Task", (runtime) => runtime.runTask(String(args.subagent), args.prompt, ctx)),
  });
}
