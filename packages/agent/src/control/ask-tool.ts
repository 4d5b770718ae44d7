import { defineTool, ok, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";
import type { AgentControlHub } from "./hub.js";
import { ControlToolName } from "./names.js";
import { withRuntime } from "./with-runtime.js";

const MAX_ANSWER_CHARS = 4000;

const AskInput = Type.Object(
  {
    questions: Type.Array(
      Type.Object(
        {
          question: Type.String({
            minLength: 1,
            maxLength: 2000,
            description: "The question, in one or two sentences.",
          }),
          options: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
              maxItems: 10,
              description: "Suggested answers the user can pick from; they may still answer freely.",
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 10, description: "The questions to ask, in order." },
    ),
  },
  { additionalProperties: false },
);

/**
 * asktool: asks the user one or more questions through the host's question port and returns the
 * answers in order. A skipped question, a host without a terminal, or a stopped turn gives an
 * empty answer; answers are cut to a bounded length.
 */
export function askTool(hub: AgentControlHub): ToolDefinition {
  return defineTool({
    name: ControlToolName.ASK,
    providerName: "asktool",
    summary: "Ask the user one or more questions",
    description:
      "Ask the user one or more questions and get their answers. Use it when a decision is genuinely theirs to make. An empty answer means the question was skipped.",
    inputSchema: AskInput,
    risk: "low",
    effects: ["ui"],
    category: "control",
    mutates: false,
    execute: async (args, ctx) =>
      withRuntime(hub, ctx, "asktool", async (runtime) => {
        const answers = await runtime.ask(args.questions, ctx);
        return ok({
          answers: args.questions.map((q, i) => {
            const answer = answers[i] ?? "";
            return {
              question: q.question,
              answer: answer.slice(0, MAX_ANSWER_CHARS),
              skipped: answer === "",
            };
          }),
        });
      }),
  });
}
