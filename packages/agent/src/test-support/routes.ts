import type { LoopbackReply, RecordedRequest } from "../testing/loopback-server.js";
import type { ScriptedTurn } from "../testing/scripted-turn.js";
import { type Provider, replyFor, useServer } from "./providers.js";
import { firstUserText } from "./requests.js";

/** A scripted step: a turn, a raw reply, or a function of the request that returns one. */
export type Step =
  | ScriptedTurn
  | LoopbackReply
  | ((request: RecordedRequest) => ScriptedTurn | LoopbackReply | Promise<ScriptedTurn | LoopbackReply>);

/**
 * A server whose answers depend on who asks: the first route whose key the request's first user
 * message starts with answers with its next step. Root, delegates and children each have their
 * own script, whatever order their requests arrive in.
 */
export async function routed(provider: Provider, routes: Record<string, Step[]>) {
  const next = new Map<string, number>();
  const server = await useServer(async (request) => {
    const first = firstUserText(request);
    const key = Object.keys(routes).find((k) => first.startsWith(k));
    if (key === undefined)
      return {
        kind: "http",
        status: 400,
        body: JSON.stringify({ error: { message: `no route for ${first.slice(0, 40)}` } }),
      };
    const index = next.get(key) ?? 0;
    next.set(key, index + 1);
    const step = routes[key]?.[index];
    if (!step)
      return {
        kind: "http",
        status: 400,
        body: JSON.stringify({ error: { message: `route ${key} has no step ${index + 1}` } }),
      };
    const resolved = typeof step === "function" ? await step(request) : step;
    return "kind" in resolved ? resolved : replyFor(provider, resolved);
  });
  return server;
}
