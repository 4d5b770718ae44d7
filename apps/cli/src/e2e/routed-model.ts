import { randomBytes } from "node:crypto";
import {
  anthropicReply,
  type LoopbackReply,
  type LoopbackServer,
  type RecordedRequest,
  type ScriptedTurn,
  startLoopbackServer,
} from "@pablo/agent/testing";
import { onTestFinished } from "vitest";

/** One answer of a route: a turn, a raw reply, or a function of the request that makes one. */
export type RouteStep =
  | ScriptedTurn
  | LoopbackReply
  | ((request: RecordedRequest) => ScriptedTurn | LoopbackReply | Promise<ScriptedTurn | LoopbackReply>);

/**
 * A model on 127.0.0.1 speaking Anthropic's wire format whose answers depend on who asks: the
 * first route whose key the request's first user message starts with answers with its next step.
 * A root and its children each follow their own script, in whatever order their requests arrive.
 */
export async function routedModel(
  routes: Record<string, readonly RouteStep[]>,
): Promise<{ server: LoopbackServer; env: Record<string, string> }> {
  const next = new Map<string, number>();
  const server = await startLoopbackServer(async (request) => {
    const first = firstUserText(request);
    const key = Object.keys(routes).find((k) => first.startsWith(k));
    const index = key === undefined ? 0 : (next.get(key) ?? 0);
    if (key !== undefined) next.set(key, index + 1);
    const step = key === undefined ? undefined : routes[key]?.[index];
    if (!step)
      return {
        kind: "http",
        status: 400,
        body: JSON.stringify({ error: { message: `no step ${index + 1} for ${first.slice(0, 40)}` } }),
      };
    const resolved = typeof step === "function" ? await step(request) : step;
    return "kind" in resolved ? resolved : anthropicReply(resolved);
  });
  onTestFinished(() => server.close());
  const key = `sk-ant-routed-${randomBytes(8).toString("hex")}`;
  return { server, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: key } };
}

/** The text of a request's first user message: who is asking. */
export function firstUserText(request: RecordedRequest | undefined): string {
  const messages = ((request?.body as { messages?: unknown[] } | undefined)?.messages ?? []) as Array<{
    role: string;
    content: unknown;
  }>;
  const first = messages.find((m) => m.role === "user");
  if (!first) return "";
  if (typeof first.content === "string") return first.content;
  return (first.content as Array<{ text?: string }>).map((b) => b.text ?? "").join("");
}
