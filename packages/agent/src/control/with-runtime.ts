import { fail, type ToolContext, type ToolResult } from "@pablo/kernel";
import type { AgentControlHub } from "./hub.js";
import { AgentErrorCode } from "./names.js";
import type { AgentRuntime } from "./ports.js";

/** Runs `body` with the loop that runs the calling session, or fails when none does. */
export function withRuntime(
  hub: AgentControlHub,
  ctx: ToolContext,
  tool: string,
  body: (runtime: AgentRuntime) => ToolResult | Promise<ToolResult>,
): ToolResult | Promise<ToolResult> {
  const runtime = hub.runtime(ctx.sessionId);
  if (!runtime) {
    return fail(
      AgentErrorCode.AGENT_STATE,
      `${tool} works only inside an agent run of the session that owns it`,
    );
  }
  return body(runtime);
}

/** Fails unless `callId` is the only call of its assistant batch. */
export function aloneInBatch(runtime: AgentRuntime, ctx: ToolContext, tool: string): ToolResult | undefined {
  const size = runtime.batchSize(ctx.callId);
  if (size === 1) return undefined;
  return fail(
    AgentErrorCode.BATCH_EXCLUSIVE,
    size === 0
      ? `${tool} must be called by the model as the only call of its response`
      : `${tool} must be the only tool call in its response; this response had ${size}. Call it again on its own.`,
  );
}
