import type { LoopbackReply } from "./loopback-server.js";
import { inputText, pieces, type ScriptedTurn } from "./scripted-turn.js";

let sequence = 0;

/** One server-sent event of the Anthropic Messages stream: `event:` line, `data:` line, blank line. */
export function anthropicEvent(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * A complete Messages stream for a scripted turn, as api.anthropic.com sends it: message_start,
 * a ping, per block content_block_start / content_block_delta (text_delta or input_json_delta)
 * / content_block_stop, then message_delta with the stop reason and usage, then message_stop.
 */
export function anthropicFrames(turn: ScriptedTurn, model = "claude-loopback"): string[] {
  const size = turn.chunk ?? 7;
  const frames: string[] = [
    anthropicEvent("message_start", {
      type: "message_start",
      message: {
        id: `msg_loopback_${++sequence}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 42, output_tokens: 1 },
      },
    }),
    anthropicEvent("ping", { type: "ping" }),
  ];
  let index = 0;
  if (turn.text !== undefined && turn.text !== "") {
    frames.push(
      anthropicEvent("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      }),
    );
    for (const piece of pieces(turn.text, size)) {
      frames.push(
        anthropicEvent("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: piece },
        }),
      );
    }
    frames.push(anthropicEvent("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  for (const call of turn.toolCalls ?? []) {
    frames.push(
      anthropicEvent("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: call.id ?? `toolu_${++sequence}`, name: call.name, input: {} },
      }),
    );
    for (const piece of pieces(inputText(call), size)) {
      frames.push(
        anthropicEvent("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        }),
      );
    }
    frames.push(anthropicEvent("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  frames.push(
    anthropicEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: anthropicStop(turn), stop_sequence: null },
      usage: { output_tokens: 17 },
    }),
    anthropicEvent("message_stop", { type: "message_stop" }),
  );
  return frames;
}

/** The reply for a scripted turn. */
export function anthropicReply(turn: ScriptedTurn, options: { delayMs?: number } = {}): LoopbackReply {
  return {
    kind: "sse",
    frames: anthropicFrames(turn),
    ...(options.delayMs ? { delayMs: options.delayMs } : {}),
  };
}

/** A 429 as the Messages API sends it, with `retry-after` in seconds. */
export function anthropicRateLimited(retryAfterSeconds: number): LoopbackReply {
  return {
    kind: "http",
    status: 429,
    headers: { "retry-after": String(retryAfterSeconds), "request-id": "req_loopback" },
    body: JSON.stringify({
      type: "error",
      error: { type: "rate_limit_error", message: "Number of request tokens has exceeded your rate limit." },
    }),
  };
}

function anthropicStop(turn: ScriptedTurn): string {
  switch (turn.stop) {
    case "refusal":
      return "refusal";
    case "max-tokens":
      return "max_tokens";
    case "end":
      return "end_turn";
    case "tool":
      return "tool_use";
    default:
      return (turn.toolCalls?.length ?? 0) > 0 ? "tool_use" : "end_turn";
  }
}
