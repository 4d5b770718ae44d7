import type { ModelMessage, ToolSet } from "ai";
import { jsonSchema, tool } from "ai";
import type { AgentMessage, ModelTool } from "./types.js";

/**
 * The loop's conversation in the AI SDK's message shape. Tool results travel as the kernel's
 * serialized text (failures as `error-text`, which providers mark as errors), so the model reads
 * exactly the bounded bytes the kernel produced.
 */
export function toModelMessages(messages: readonly AgentMessage[]): ModelMessage[] {
  return messages.map(toModelMessage);
}

function toModelMessage(message: AgentMessage): ModelMessage {
  if (message.role === "user") return { role: "user", content: message.content };
  if (message.role === "assistant") {
    return {
      role: "assistant",
      content: [
        ...(message.text === "" ? [] : [{ type: "text" as const, text: message.text }]),
        ...message.toolCalls.map((call) => ({
          type: "tool-call" as const,
          toolCallId: call.id,
          toolName: call.name,
          input: argumentObject(call.input),
        })),
      ],
    };
  }
  return {
    role: "tool",
    content: message.results.map((result) => ({
      type: "tool-result" as const,
      toolCallId: result.id,
      toolName: result.name,
      output: result.isError
        ? { type: "error-text" as const, value: result.output }
        : { type: "text" as const, value: result.output },
    })),
  };
}

/**
 * Tool definitions without an `execute` function: the SDK only reports the calls, and the loop
 * dispatches each one through the kernel.
 */
export function toToolSet(tools: readonly ModelTool[]): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    set[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema as never) });
  }
  return set;
}

/**
 * Providers want an object for a past call's arguments. Text that is not a JSON object (the
 * model's own mistake, already answered with INVALID_ARGUMENT) is replayed as an empty object.
 */
function argumentObject(input: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(input === "" ? "{}" : input) as unknown;
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
