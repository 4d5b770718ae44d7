import { describe, expect, it } from "vitest";
import * as agent from "./index.js";
import * as testing from "./testing/index.js";

describe("the public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(agent).sort()).toMatchInlineSnapshot(`
      [
        "ASSIGNABLE_TOOLS",
        "Agent",
        "AgentControlHub",
        "AgentErrorCode",
        "AgentOptionsSchema",
        "ControlToolName",
        "DEFAULT_MAX_CHILDREN",
        "DEFAULT_RETRY",
        "EXCLUSIVE_TOOLS",
        "ModelErrorCode",
        "REPLAY_FORMAT",
        "ReplayFile",
        "ReplayResponse",
        "ReplayToolCall",
        "RunRenderer",
        "SubagentCode",
        "SubagentDefinitionSchema",
        "agentProviderFromOptions",
        "compactMessages",
        "createAgentProvider",
        "createControlTools",
        "createModel",
        "delegateAuthority",
        "delegateLayer",
        "eventLine",
        "findAgentProvider",
        "loadReplay",
        "openDelegateSession",
        "parseAgentOptions",
        "parseReplay",
        "recordingModel",
        "registerHandoffSource",
        "replayModel",
        "resolveChildConfig",
        "resolveSubagents",
        "resultLine",
        "retryAfterMs",
        "runAgent",
        "sdkModel",
        "summaryLines",
        "systemPrompt",
      ]
    `);
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "OPENAI_DONE",
        "anthropicEvent",
        "anthropicFrames",
        "anthropicRateLimited",
        "anthropicReply",
        "openaiChunk",
        "openaiFrames",
        "openaiRateLimited",
        "openaiReply",
        "startLoopbackServer",
      ]
    `);
  });
});
