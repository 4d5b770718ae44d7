import { resolveSection, type SectionResult, StringRecord } from "@pablo/kernel";
import Type, { type Static } from "typebox";
import { SUBAGENT_NAME_PATTERN, SubagentFieldsSchema } from "../children/subagents.js";

/** `[options.agent]` of a deployment: the loop's instructions, Task delegates and children. */
export const AgentOptionsSchema = Type.Object(
  {
    model: Type.Optional(
      Type.String({
        pattern: "^[a-z-]+:.+$",
        description: "Default model for `pablo run`: anthropic:NAME, openai-compatible:NAME or replay:FILE.",
      }),
    ),
    instructions: Type.Optional(
      Type.String({ maxLength: 64 * 1024, description: "Extra system instructions for every run." }),
    ),
    subagents: Type.Optional(
      StringRecord(Type.String({ pattern: SUBAGENT_NAME_PATTERN }), SubagentFieldsSchema, {
        description: "Task delegates by name.",
      }),
    ),
    children: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({ description: "Offer child_start/child_wait/child_handoff. Default false." }),
          ),
          max_concurrent: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 8,
              description: "Children running at once; the rest queue FIFO. Default 2.",
            }),
          ),
          tools: Type.Optional(
            Type.Union([Type.Literal("*"), Type.Array(Type.String())], {
              description: "Tools a child may call, as for subagents. Default: Read, Glob, Grep.",
            }),
          ),
          instructions: Type.Optional(
            Type.String({ maxLength: 64 * 1024, description: "The children's instructions." }),
          ),
        },
        { additionalProperties: false, description: "Supervised children (depth one)." },
      ),
    ),
  },
  { additionalProperties: false },
);

export type AgentOptions = Static<typeof AgentOptionsSchema>;

/**
 * Validates `[options.agent]` (absent means every default) with the kernel's `resolveSection`.
 * Never throws: a bad section comes back as located errors that say what is allowed.
 */
export function parseAgentOptions(section: unknown): SectionResult<AgentOptions> {
  return resolveSection(AgentOptionsSchema, section);
}
