import type { JsonValue } from "@pablo/kernel";

/**
 * The conversation as the loop keeps it. Tool-call arguments are the model's raw JSON text, and
 * tool results are the kernel's serialized, bounded result: exactly what the model receives.
 */
export type AgentMessage =
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly text: string; readonly toolCalls: readonly ModelToolCall[] }
  | { readonly role: "tool"; readonly results: readonly ToolResultMessage[] };

export interface ModelToolCall {
  readonly id: string;
  /** The provider name the model called. */
  readonly name: string;
  /** The argument text exactly as the model produced it (may be invalid JSON). */
  readonly input: string;
}

export interface ToolResultMessage {
  readonly id: string;
  readonly name: string;
  /** The serialized result the kernel bounded. */
  readonly output: string;
  readonly isError: boolean;
}

/** A tool as a model is offered it: provider name, description, JSON Schema of the input. */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** One model request. */
export interface ModelRequest {
  /** Who is asking: `root`, `task:<name>` or `child:<id>`; replay transcripts are keyed by it. */
  readonly agent: string;
  readonly system: string;
  readonly messages: readonly AgentMessage[];
  readonly tools: readonly ModelTool[];
  /** Epoch milliseconds after which no retry wait may end. */
  readonly deadline: number;
}

/** Why a response ended. `incomplete` means the stream stopped before the provider's own end. */
export type FinishReason = "stop" | "tool-calls" | "length" | "refusal" | "incomplete" | "other";

export interface TokenUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** Stable codes of a failed model call. */
export const ModelErrorCode = {
  /** The provider answered with an error status (after retries, when it was retryable). */
  MODEL_HTTP_ERROR: "MODEL_HTTP_ERROR",
  /** The stream carried data that is not the provider's format (bad JSON, an error event). */
  MODEL_STREAM_MALFORMED: "MODEL_STREAM_MALFORMED",
  /** The connection or stream ended before the provider finished the response. */
  MODEL_STREAM_INCOMPLETE: "MODEL_STREAM_INCOMPLETE",
  /** The provider could not be reached. */
  MODEL_UNAVAILABLE: "MODEL_UNAVAILABLE",
  /** A replay transcript has no response for this request, or does not parse. */
  REPLAY_MISMATCH: "REPLAY_MISMATCH",
  /** A model threw instead of streaming an `error` event (it broke its contract); the turn fails. */
  MODEL_FAILED: "MODEL_FAILED",
  /** `createModel`: the spec is not `anthropic:NAME`, `openai-compatible:NAME` or `replay:FILE`. */
  MODEL_SPEC: "MODEL_SPEC",
  /** `createModel`: the provider's key (or base URL) is not available to this consumer. */
  MODEL_CREDENTIALS: "MODEL_CREDENTIALS",
} as const;
export type ModelErrorCode = (typeof ModelErrorCode)[keyof typeof ModelErrorCode];

/**
 * What a model streams. Contract: `Model.stream` never throws; it ends after exactly one
 * `finish` or `error` event (or early, without either, once the signal aborts).
 */
export type ModelEvent =
  | { readonly type: "text"; readonly text: string }
  /** A piece of a tool call's argument text, for progress and the output bound. */
  | { readonly type: "tool-input"; readonly id: string; readonly delta: string }
  | { readonly type: "tool-call"; readonly call: ModelToolCall }
  | {
      readonly type: "retry";
      readonly attempt: number;
      readonly delayMs: number;
      readonly status?: number;
      readonly message: string;
    }
  | { readonly type: "warning"; readonly message: string }
  | { readonly type: "finish"; readonly reason: FinishReason; readonly usage?: TokenUsage }
  | {
      readonly type: "error";
      readonly code: ModelErrorCode;
      readonly message: string;
      readonly status?: number;
      readonly details?: Readonly<Record<string, JsonValue>>;
    };

/** A model the loop can ask. Adapters wrap a provider library; replay plays a transcript. */
export interface Model {
  /** `anthropic:NAME`, `openai-compatible:NAME`, `replay:FILE`. Never carries a credential. */
  readonly id: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}
