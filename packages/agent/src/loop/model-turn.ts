import {
  type FinishReason,
  type Model,
  ModelErrorCode,
  type ModelRequest,
  type ModelToolCall,
  type TokenUsage,
} from "../model/types.js";
import type { AgentEventListener } from "./events.js";

export type TurnEnd =
  | { readonly kind: "finish"; readonly reason: FinishReason; readonly usage?: TokenUsage }
  | { readonly kind: "error"; readonly code: string; readonly message: string }
  | { readonly kind: "limit"; readonly message: string }
  | { readonly kind: "aborted" };

export interface TurnOutput {
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  readonly end: TurnEnd;
  readonly outputBytes: number;
}

export interface TurnOptions {
  readonly signal: AbortSignal;
  /** The model-output bound of one response, in UTF-8 bytes (text plus tool-call arguments). */
  readonly maxOutputBytes: number;
  readonly emit: AgentEventListener;
  readonly turn: number;
}

const encoder = new TextEncoder();

/**
 * One model request: streams text to the listener, collects tool calls, and stops the stream
 * as soon as the response passes its output bound or the signal aborts.
 */
export async function modelTurn(
  model: Model,
  request: ModelRequest,
  options: TurnOptions,
): Promise<TurnOutput> {
  const controller = new AbortController();
  const forward = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) forward();
  else options.signal.addEventListener("abort", forward, { once: true });
  const agent = request.agent;
  let text = "";
  const calls: ModelToolCall[] = [];
  const streamed = new Set<string>();
  let bytes = 0;
  let end: TurnEnd | undefined;
  const over = () => bytes > options.maxOutputBytes;
  try {
    for await (const event of model.stream(request, controller.signal)) {
      if (controller.signal.aborted) break;
      switch (event.type) {
        case "text":
          text += event.text;
          bytes += encoder.encode(event.text).length;
          options.emit({ type: "model.text", agent, text: event.text });
          break;
        case "tool-input":
          streamed.add(event.id);
          bytes += encoder.encode(event.delta).length;
          break;
        case "tool-call":
          if (!streamed.has(event.call.id)) bytes += encoder.encode(event.call.input).length;
          calls.push(event.call);
          break;
        case "retry":
          options.emit({
            type: "model.retry",
            agent,
            attempt: event.attempt,
            delayMs: event.delayMs,
            ...(event.status !== undefined ? { status: event.status } : {}),
            message: event.message,
          });
          break;
        case "warning":
          options.emit({ type: "model.warning", agent, message: event.message });
          break;
        case "finish":
          end = { kind: "finish", reason: event.reason, ...(event.usage ? { usage: event.usage } : {}) };
          break;
        case "error":
          end = { kind: "error", code: event.code, message: event.message };
          break;
      }
      if (over()) {
        end = {
          kind: "limit",
          message: `the model's response passed the ${options.maxOutputBytes}-byte output limit and was stopped`,
        };
        break;
      }
      if (end) break;
    }
  } catch (error) {
    // Contract: models do not throw. One that does fails this turn, not the host.
    end = {
      kind: "error",
      code: ModelErrorCode.MODEL_FAILED,
      message: error instanceof Error ? error.message : String(error),
    };
  } finally {
    options.signal.removeEventListener("abort", forward);
    controller.abort();
  }
  if (options.signal.aborted) end = { kind: "aborted" };
  const final: TurnEnd = end ?? {
    kind: "error",
    code: "MODEL_STREAM_INCOMPLETE",
    message: "the model stream ended without a finish",
  };
  options.emit({
    type: "model.finished",
    agent,
    turn: options.turn,
    reason: final.kind === "finish" ? final.reason : "error",
    toolCalls: calls.length,
    ...(final.kind === "finish" && final.usage ? { usage: final.usage } : {}),
  });
  return { text, toolCalls: calls, end: final, outputBytes: bytes };
}
