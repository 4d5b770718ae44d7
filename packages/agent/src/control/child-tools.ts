import { defineTool, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";
import type { AgentControlHub } from "./hub.js";
import { ControlToolName } from "./names.js";
import { withRuntime } from "./with-runtime.js";

const ChildId = Type.String({
  pattern: "^c[0-9]{1,6}$",
  description: "The child's ID, as child_start returned it.",
});

/** A child's ID, or a retained result's (`r1`: a remote agent's artifact, as its tool's receipt named it). */
const HandoffId = Type.String({
  pattern: "^[a-z][0-9]{1,6}$",
  description:
    "The child's ID as child_start returned it, or a retained result's ID (r1) as a remote agent's receipt named it.",
});

/**
 * Supervised children (seed 002): child_start queues a bounded sub-task, child_wait reports its
 * state and accounting, child_handoff promotes its one validated result into the conversation.
 * A child's answer stays with the supervisor until it is handed off.
 */
/** What the three child tools share: low risk, the `child` effect, Agent mode only, scoped to children. */
const CHILD_TOOL = {
  risk: "low",
  effects: ["child"],
  category: "external",
  mutates: false,
  scope: [{ dimension: "child", value: "child" }],
} as const satisfies Pick<ToolDefinition, "risk" | "effects" | "category" | "mutates" | "scope">;

export function childTools(hub: AgentControlHub): ToolDefinition[] {
  return [
    defineTool({
      name: ControlToolName.CHILD_START,
      providerName: "child_start",
      summary: "Start a supervised child on a bounded sub-task",
      description:
        "Start a supervised child agent on a bounded sub-task. It works with read-only tools unless configured otherwise, shares your budgets, and runs two at a time; more wait in a queue. Returns its ID at once; use child_wait, then child_handoff to receive its result.",
      inputSchema: Type.Object(
        { task: Type.String({ minLength: 1, maxLength: 100_000, description: "The complete sub-task." }) },
        { additionalProperties: false },
      ),
      ...CHILD_TOOL,
      execute: async (args, ctx) =>
        withRuntime(hub, ctx, "child_start", (runtime) => runtime.startChild(args.task, ctx)),
    }),
    defineTool({
      name: ControlToolName.CHILD_WAIT,
      providerName: "child_wait",
      summary: "Wait for a child and get its state and accounting",
      description:
        "Wait until a child finishes or the timeout passes, and get its state, its accounting (model calls, tool calls, duration) and the files it saw. Its answer is not included: use child_handoff.",
      inputSchema: Type.Object(
        {
          child: ChildId,
          timeout_ms: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 3_600_000,
              description: "Longest wait in milliseconds (default 600000; 0 only reports).",
            }),
          ),
        },
        { additionalProperties: false },
      ),
      ...CHILD_TOOL,
      execute: async (args, ctx) =>
        withRuntime(hub, ctx, "child_wait", (runtime) =>
          runtime.waitChild(args.child, args.timeout_ms ?? 600_000, ctx),
        ),
    }),
    childHandoffTool(hub),
  ];
}

/**
 * child_handoff alone: offered with the child tools, and also without them when a host retains
 * results of other tools (remote A2A artifacts) for it to promote.
 */
export function childHandoffTool(hub: AgentControlHub): ToolDefinition {
  return defineTool({
    name: ControlToolName.CHILD_HANDOFF,
    providerName: "child_handoff",
    summary: "Receive a finished child's validated result",
    description:
      "Promote a finished child's result into this conversation: its answer and, when `artifact` names a file it read or wrote, that file's content. The file is checked again under the child's read authority just before use, and refused if it changed since the child saw it. Each child hands off once. A remote agent's artifact (an ID like r1, from an a2a tool's receipt) is promoted the same way, once, as untrusted data.",
    inputSchema: Type.Object(
      {
        child: HandoffId,
        artifact: Type.Optional(
          Type.String({
            minLength: 1,
            description: "A file the child read or wrote, as child_wait listed it.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    ...CHILD_TOOL,
    execute: async (args, ctx) =>
      withRuntime(hub, ctx, "child_handoff", (runtime) => runtime.handoff(args.child, args.artifact, ctx)),
  });
}
