import { APICallError, type LanguageModel, NoOutputGeneratedError, streamText } from "ai";
import {
  DEFAULT_RETRY,
  isRetryableStatus,
  type RetryPolicy,
  retryAfterMs,
  retryDelay,
  waitFor,
} from "./retry.js";
import { toModelMessages, toToolSet } from "./to-model-messages.js";
import {
  type FinishReason,
  type Model,
  ModelErrorCode,
  type ModelEvent,
  type ModelRequest,
} from "./types.js";

export interface SdkModelOptions {
  readonly retry?: RetryPolicy;
  /** Output tokens per response; the provider's default for the model when absent. */
  readonly maxOutputTokens?: number;
}

// The SDK prints its warnings to the console; the loop reports them as events instead. A host that
// set the switch itself keeps its choice.
const sdkGlobals = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
sdkGlobals.AI_SDK_LOG_WARNINGS ??= false;

/**
 * A {@link Model} over an AI SDK language model. The SDK speaks the provider's wire protocol;
 * tools are sent without `execute`, so the SDK only reports calls and never runs anything. The
 * adapter retries a refused request (429, 5xx, overload, unreachable) before any output arrived,
 * waiting what the provider asked (`retry-after`) within the policy and the run deadline.
 */
export function sdkModel(id: string, language: LanguageModel, options: SdkModelOptions = {}): Model {
  const policy = options.retry ?? DEFAULT_RETRY;
  return {
    id,
    async *stream(request, signal) {
      for (let attempt = 1; ; attempt++) {
        const attemptResult = yield* streamOnce(language, request, signal, options);
        if (attemptResult === "done" || signal.aborted) return;
        const failure = attemptResult;
        const delay = retryDelay(policy, attempt, failure.retryAfterMs);
        const fits = Date.now() + delay < request.deadline && delay <= policy.maxDelayMs;
        if (attempt > policy.maxRetries || !fits) {
          yield failure.event;
          return;
        }
        yield {
          type: "retry",
          attempt,
          delayMs: delay,
          ...(failure.event.type === "error" && failure.event.status !== undefined
            ? { status: failure.event.status }
            : {}),
          message: failure.event.type === "error" ? failure.event.message : "retrying",
        };
        if (!(await waitFor(delay, signal))) return;
      }
    },
  };
}

interface RetryableFailure {
  readonly event: ModelEvent & { type: "error" };
  readonly retryAfterMs: number | undefined;
}

async function* streamOnce(
  language: LanguageModel,
  request: ModelRequest,
  signal: AbortSignal,
  options: SdkModelOptions,
): AsyncGenerator<ModelEvent, "done" | RetryableFailure> {
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });
  let emitted = false;
  const failed = (error: unknown) => {
    const event = classify(error, emitted);
    return !emitted && event.retryable
      ? { event: event.event, retryAfterMs: event.retryAfterMs }
      : event.event;
  };
  try {
    const result = streamText({
      model: language,
      system: request.system,
      messages: toModelMessages(request.messages),
      ...(request.tools.length > 0 ? { tools: toToolSet(request.tools) } : {}),
      maxRetries: 0,
      abortSignal: controller.signal,
      ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
      onError: () => undefined,
    });
    // The SDK reports most failures as `error` parts, but a body that breaks mid-read throws.
    const parts = result.fullStream[Symbol.asyncIterator]();
    for (;;) {
      let step: IteratorResult<typeof result.fullStream extends AsyncIterable<infer P> ? P : never>;
      try {
        step = await parts.next();
      } catch (error) {
        if (signal.aborted) return "done";
        const outcome = failed(error);
        if ("retryAfterMs" in outcome) return outcome;
        yield outcome;
        return "done";
      }
      if (step.done) break;
      const part = step.value;
      switch (part.type) {
        case "start-step":
          for (const warning of part.warnings) yield { type: "warning", message: describeWarning(warning) };
          break;
        case "text-delta":
          emitted = true;
          yield { type: "text", text: part.text };
          break;
        case "tool-input-delta":
          emitted = true;
          yield { type: "tool-input", id: part.id, delta: part.delta };
          break;
        case "tool-call":
          emitted = true;
          yield {
            type: "tool-call",
            call: {
              id: part.toolCallId,
              name: part.toolName,
              input: typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {}),
            },
          };
          break;
        case "error": {
          const outcome = failed(part.error);
          if ("retryAfterMs" in outcome) return outcome;
          yield outcome;
          return "done";
        }
        case "finish":
          yield {
            type: "finish",
            reason: finishReason(part.finishReason, part.rawFinishReason),
            usage: usageOf(part.totalUsage),
          };
          return "done";
        case "abort":
          return "done";
        default:
          break;
      }
    }
    if (!signal.aborted) {
      yield {
        type: "error",
        code: ModelErrorCode.MODEL_STREAM_INCOMPLETE,
        message: "the model stream ended without a finish",
      };
    }
    return "done";
  } finally {
    signal.removeEventListener("abort", forward);
    controller.abort();
  }
}

function finishReason(reason: string, raw: string | undefined): FinishReason {
  switch (reason) {
    case "stop":
      return "stop";
    case "tool-calls":
      return "tool-calls";
    case "length":
      return "length";
    case "content-filter":
      return "refusal";
    default:
      // The providers map a missing stop reason to `other`: the stream ended before the end event.
      return raw === undefined ? "incomplete" : "other";
  }
}

function usageOf(usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined) {
  return {
    ...(usage?.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
    ...(usage?.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
  };
}

/** Maps an SDK error to a stable code; says whether a fresh attempt may help. */
function classify(
  error: unknown,
  emitted: boolean,
): {
  event: ModelEvent & { type: "error" };
  retryable: boolean;
  retryAfterMs: number | undefined;
} {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status !== undefined && status >= 200 && status < 300) {
      return {
        event: {
          type: "error",
          code: ModelErrorCode.MODEL_STREAM_INCOMPLETE,
          message: `the response stream failed: ${error.message}`,
          status,
        },
        retryable: false,
        retryAfterMs: undefined,
      };
    }
    const code = status === undefined ? ModelErrorCode.MODEL_UNAVAILABLE : ModelErrorCode.MODEL_HTTP_ERROR;
    return {
      event: {
        type: "error",
        code,
        message:
          status === undefined
            ? `the provider could not be reached: ${error.message}`
            : `HTTP ${status}: ${error.message}`,
        ...(status !== undefined ? { status } : {}),
      },
      retryable: status === undefined ? error.isRetryable : isRetryableStatus(status),
      retryAfterMs: retryAfterMs(error.responseHeaders),
    };
  }
  const message = messageOf(error);
  // No finish after some output: the stream stopped early. No finish and no output: not a stream.
  const incomplete =
    (error instanceof TypeError && /terminated|aborted|closed/i.test(message)) ||
    (NoOutputGeneratedError.isInstance(error) && emitted) ||
    /stream ended without a finish/i.test(message);
  return {
    event: {
      type: "error",
      code: incomplete ? ModelErrorCode.MODEL_STREAM_INCOMPLETE : ModelErrorCode.MODEL_STREAM_MALFORMED,
      message: incomplete
        ? `the response stream was cut off: ${message}`
        : `the response stream is malformed: ${message}`,
    },
    retryable: false,
    retryAfterMs: undefined,
  };
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error !== null && typeof error === "object" && "message" in error) return String(error.message);
  return String(error);
}

function describeWarning(warning: unknown): string {
  if (warning !== null && typeof warning === "object") {
    const w = warning as { type?: unknown; feature?: unknown; message?: unknown; details?: unknown };
    return [w.type, w.feature, w.message, w.details].filter((x) => typeof x === "string").join(": ");
  }
  return String(warning);
}
