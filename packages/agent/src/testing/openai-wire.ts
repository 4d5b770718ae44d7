import type { LoopbackReply } from "./loopback-server.js";
import { inputText, pieces, type ScriptedTurn } from "./scripted-turn.js";

let sequence = 0;

/** One server-sent event of the chat.completions stream: a `data:` line and a blank line. */
export function openaiChunk(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

export const OPENAI_DONE = "data: [DONE]\n\n";

/**
 * A complete chat.completions stream for a scripted turn, as OpenAI-compatible servers send it:
 * a role chunk, content deltas, `delta.tool_calls` deltas (the first with id, type and name, the
 * rest with argument pieces, all keyed by index), a chunk with `finish_reason`, a usage chunk
 * with empty choices, then `data: [DONE]`. A refusal streams `delta.refusal`.
 */
export function openaiFrames(turn: ScriptedTurn, model = "loopback-model"): string[] {
  const size = turn.chunk ?? 7;
  const id = `chatcmpl-loopback-${++sequence}`;
  const chunk = (delta: unknown, finish: string | null = null) =>
    openaiChunk({
      id,
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const frames: string[] = [chunk({ role: "assistant", content: "" })];
  if (turn.stop === "refusal") {
    for (const piece of pieces(turn.text ?? "I can't help with that.", size))
      frames.push(chunk({ refusal: piece }));
  } else {
    for (const piece of pieces(turn.text ?? "", size)) frames.push(chunk({ content: piece }));
  }
  (turn.toolCalls ?? []).forEach((call, index) => {
    const argumentsText = inputText(call);
    frames.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${++sequence}`,
            type: "function",
            function: { name: call.name, arguments: "" },
          },
        ],
      }),
    );
    for (const piece of pieces(argumentsText, size)) {
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  frames.push(chunk({}, openaiFinish(turn)));
  frames.push(
    openaiChunk({
      id,
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model,
      choices: [],
      usage: { prompt_tokens: 42, completion_tokens: 17, total_tokens: 59 },
    }),
  );
  frames.push(OPENAI_DONE);
  return frames;
}

/** The reply for a scripted turn. */
export function openaiReply(turn: ScriptedTurn, options: { delayMs?: number } = {}): LoopbackReply {
  return {
    kind: "sse",
    frames: openaiFrames(turn),
    ...(options.delayMs ? { delayMs: options.delayMs } : {}),
  };
}

/** A 429 as OpenAI sends it, with `retry-after` in seconds. */
export function openaiRateLimited(retryAfterSeconds: number): LoopbackReply {
  return {
    kind: "http",
    status: 429,
    headers: { "retry-after": String(retryAfterSeconds) },
    body: JSON.stringify({
      error: {
        message: "Rate limit reached for requests",
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      },
    }),
  };
}

function openaiFinish(turn: ScriptedTurn): string {
  switch (turn.stop) {
    case "refusal":
    case "end":
      return "stop";
    case "max-tokens":
      return "length";
    case "tool":
      return "tool_calls";
    default:
      return (turn.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop";
  }
}
