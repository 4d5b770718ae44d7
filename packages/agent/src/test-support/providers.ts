import { onTestFinished } from "vitest";
import { createModel } from "../model/create-model.js";
import type { Model } from "../model/types.js";
import { anthropicReply } from "../testing/anthropic-wire.js";
import {
  type LoopbackHandler,
  type LoopbackReply,
  type LoopbackServer,
  startLoopbackServer,
} from "../testing/loopback-server.js";
import { openaiReply } from "../testing/openai-wire.js";
import type { ScriptedTurn } from "../testing/scripted-turn.js";

export type Provider = "anthropic" | "openai-compatible";

/** A model of `provider` talking to `server`, with fast retries. */
export function modelFor(provider: Provider, server: LoopbackServer): Model {
  const env =
    provider === "anthropic"
      ? { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" }
      : { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-openai-test" };
  const created = createModel(`${provider}:loopback`, env, undefined, {
    retry: { maxRetries: 2, baseDelayMs: 20, maxDelayMs: 2000 },
  });
  if (!created.ok) throw new Error(created.message);
  return created.model;
}

/** The reply for a scripted turn in `provider`'s wire format. */
export function replyFor(provider: Provider, turn: ScriptedTurn): LoopbackReply {
  return provider === "anthropic" ? anthropicReply(turn) : openaiReply(turn);
}

/** A loopback server closed when the test finishes. */
export async function useServer(handler: LoopbackHandler): Promise<LoopbackServer> {
  const server = await startLoopbackServer(handler);
  onTestFinished(() => server.close());
  return server;
}

/**
 * A server that answers request N with turn N (a scripted turn or a raw reply); past the end it
 * answers a 500 so that a loop asking for more fails visibly.
 */
export async function scripted(provider: Provider, turns: readonly (ScriptedTurn | LoopbackReply)[]) {
  const server = await useServer((_request, index) => {
    const turn = turns[index];
    if (!turn)
      return {
        kind: "http",
        status: 500,
        body: JSON.stringify({ error: { message: `no scripted turn ${index + 1}` } }),
      };
    return "kind" in turn ? turn : replyFor(provider, turn);
  });
  return { server, model: modelFor(provider, server) };
}
