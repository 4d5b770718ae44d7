import { StringRecord } from "@pablo/kernel";
import Type, { type Static } from "typebox";

export const REPLAY_FORMAT = "pablo.replay/1";

export const ReplayToolCall = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, description: "Call ID; generated when absent." })),
    name: Type.String({ minLength: 1, description: "Provider name of the tool, as a model would call it." }),
    input: Type.Union([StringRecord(Type.String(), Type.Unknown()), Type.String()], {
      description: "Arguments: an object, or a string sent as raw argument text (even invalid JSON).",
    }),
  },
  { additionalProperties: false },
);

export const ReplayError = Type.Object(
  {
    code: Type.String({ description: "A model error code, for example MODEL_HTTP_ERROR." }),
    message: Type.String({ description: "What the provider said." }),
    status: Type.Optional(Type.Integer({ description: "HTTP status, when there was one." })),
  },
  { additionalProperties: false },
);

export const ReplayResponse = Type.Object(
  {
    text: Type.Optional(Type.String({ description: "Assistant text streamed before the tool calls." })),
    toolCalls: Type.Optional(
      Type.Array(ReplayToolCall, { description: "Tool calls of this response, in order." }),
    ),
    finish: Type.Optional(
      Type.Union(
        [
          Type.Literal("stop"),
          Type.Literal("tool-calls"),
          Type.Literal("length"),
          Type.Literal("refusal"),
          Type.Literal("incomplete"),
          Type.Literal("other"),
        ],
        { description: "Why the response ends; `tool-calls` when there are calls, else `stop`." },
      ),
    ),
    error: Type.Optional(ReplayError),
    note: Type.Optional(Type.String({ description: "Free text for people; ignored on replay." })),
  },
  { additionalProperties: false },
);

/**
 * A recorded model transcript: the responses a model gave, in request order, per agent. `root`
 * answers the main loop; `agents` answers delegates (`task:NAME`) and children (`child:ID`).
 */
export const ReplayFile = Type.Object(
  {
    format: Type.Literal(REPLAY_FORMAT, { description: "Format marker." }),
    model: Type.Optional(Type.String({ description: "The model the transcript was recorded from." })),
    description: Type.Optional(Type.String({ description: "What the transcript exercises." })),
    responses: Type.Array(ReplayResponse, {
      description: "Responses to the root loop's requests, in order.",
    }),
    agents: Type.Optional(
      StringRecord(Type.String(), Type.Array(ReplayResponse), {
        description: "Responses to delegates and children, keyed by agent (`task:NAME`, `child:ID`).",
      }),
    ),
  },
  { additionalProperties: false },
);

export type ReplayToolCall = Static<typeof ReplayToolCall>;
export type ReplayResponse = Static<typeof ReplayResponse>;
export type ReplayFile = Static<typeof ReplayFile>;
