import type { RecordedRequest } from "../testing/loopback-server.js";

/** The body of a recorded provider request as a loose object. */
export function bodyOf(request: RecordedRequest | undefined): Record<string, unknown> {
  return (request?.body ?? {}) as Record<string, unknown>;
}

/** Tool names a provider request offered (Anthropic `name`, OpenAI `function.name`). */
export function toolNames(request: RecordedRequest | undefined): string[] {
  const tools = (bodyOf(request)["tools"] ?? []) as Array<{ name?: string; function?: { name: string } }>;
  return tools.map((t) => t.name ?? t.function?.name ?? "").sort();
}

/** The system text of an Anthropic request (a string or text blocks). */
export function anthropicSystem(request: RecordedRequest | undefined): string {
  const system = bodyOf(request)["system"];
  if (typeof system === "string") return system;
  return Array.isArray(system) ? system.map((b: { text?: string }) => b.text ?? "").join("\n") : "";
}

/** The first user message text of an Anthropic or OpenAI request. */
export function firstUserText(request: RecordedRequest | undefined): string {
  const messages = (bodyOf(request)["messages"] ?? []) as Array<{ role: string; content: unknown }>;
  const first = messages.find((m) => m.role === "user");
  if (!first) return "";
  if (typeof first.content === "string") return first.content;
  return (first.content as Array<{ type: string; text?: string }>).map((b) => b.text ?? "").join("");
}

/** Tool results an Anthropic request carries, by tool_use_id. */
export function anthropicToolResults(
  request: RecordedRequest | undefined,
): Map<string, { content: string; isError: boolean }> {
  const out = new Map<string, { content: string; isError: boolean }>();
  const messages = (bodyOf(request)["messages"] ?? []) as Array<{ role: string; content: unknown }>;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block["type"] !== "tool_result") continue;
      const content = block["content"];
      const text =
        typeof content === "string"
          ? content
          : (content as Array<{ text?: string }>).map((c) => c.text ?? "").join("");
      out.set(String(block["tool_use_id"]), { content: text, isError: block["is_error"] === true });
    }
  }
  return out;
}
