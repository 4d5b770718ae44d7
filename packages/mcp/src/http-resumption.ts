import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MessageTooLarge } from "./transport-errors.js";

/**
 * Bounds of resuming a tool call's response stream (Streamable HTTP, SEP-1699). A stream the
 * server ends before it answered is resumed with `GET` and `Last-Event-ID` after the server's
 * `retry` delay (or {@link RESUMPTION_LIMITS.defaultRetryMs}); the `tools/call` POST is never
 * sent again. The kernel's deadline and cancellation end the call whatever is pending.
 */
export const RESUMPTION_LIMITS = {
  /** Resumptions of one call's stream; after that the call ends as disconnected. */
  maxResumptions: 5,
  /** Delay before resuming when the server gave no `retry`. */
  defaultRetryMs: 1_000,
  /** A larger `retry` from the server is cut to this. */
  maxRetryMs: 30_000,
} as const;

const byTransport = new WeakMap<Transport, HttpResumption>();

/** What the connection learns about one watched call. */
export interface CallStream {
  /** How many times this call's response stream was resumed so far. */
  readonly resumptions: number;
  /** Stops watching: cancels a pending resumption and closes a resumed stream. */
  end(): void;
}

/**
 * Watches the tool calls of one Streamable HTTP transport and resumes their response streams.
 * It sits in the transport's `fetch`: it sees each `tools/call` POST (to learn the request's ID
 * from the call's progress token) and reads the server-sent events of that call's streams (event
 * IDs, `retry`, whether the answer came). The SDK transport is configured not to reconnect by
 * itself, so every `GET` with `Last-Event-ID` comes from here, for exactly one call.
 */
export class HttpResumption {
  /** The resumption of a transport made by `createHttpTransport`, if it is one. */
  static of(transport: Transport): HttpResumption | undefined {
    return byTransport.get(transport);
  }

  readonly #calls = new Map<string, CallState>();
  #transport: Transport | undefined;

  /** The transport resumptions are sent through (`send` with a resumption token: a GET). */
  attach(transport: Transport): void {
    this.#transport = transport;
    byTransport.set(transport, this);
  }

  /**
   * Starts watching the call whose `tools/call` carries `progressToken`. `onLost` is called once
   * if its stream ended and cannot be resumed (no event ID, limit reached, refused).
   */
  watch(progressToken: string, onLost: (reason: string) => void): CallStream {
    const state = new CallState(progressToken, onLost);
    this.#calls.set(progressToken, state);
    return {
      get resumptions() {
        return state.resumptions;
      },
      end: () => {
        state.finish();
        this.#calls.delete(progressToken);
      },
    };
  }

  /** Wraps the transport's fetch; see the class comment. */
  wrap(inner: FetchLike): FetchLike {
    return async (url, init) => {
      const method = init?.method ?? "GET";
      const state = method === "POST" ? this.#learn(init?.body) : this.#resuming(init?.headers);
      if (!state) return inner(url, init);
      // The SDK aborts its own signal when the transport closes: nothing is resumed after that.
      if (init?.signal) state.transportSignal = init.signal;
      // Only a resumed GET gets a signal of its own (the call's end closes it); a POST stream ends
      // with its answer, and linking signals on every call costs more than the call's other work.
      const signal =
        method === "GET"
          ? init?.signal
            ? AbortSignal.any([init.signal, state.streamSignal])
            : state.streamSignal
          : init?.signal;
      let response: Response;
      try {
        response = await inner(url, { ...init, ...(signal ? { signal } : {}) });
      } catch (error) {
        if (method === "GET") this.#ended(state, error);
        throw error;
      }
      const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
      if (method === "GET" && (!response.ok || !sse || !response.body)) {
        this.#ended(state, new Error(`resuming the stream was answered with HTTP ${response.status}`), true);
        return response;
      }
      if (!sse || !response.body) return response;
      return new Response(this.#observe(response.body, state), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }

  /**
   * The `tools/call` POST of a watched call, found by its progress token; the body is kept as it
   * is and parsed only if the stream has to be resumed (rare), not on every call.
   */
  #learn(body: unknown): CallState | undefined {
    if (typeof body !== "string" || this.#calls.size === 0) return undefined;
    for (const state of this.#calls.values()) {
      if (state.body === undefined && body.includes(`"progressToken":"${state.progressToken}"`)) {
        state.body = body;
        return state;
      }
    }
    return undefined;
  }

  /** A GET this class started: its `Last-Event-ID` names the call being resumed. */
  #resuming(headers: unknown): CallState | undefined {
    const lastEventId = new Headers(headers as ConstructorParameters<typeof Headers>[0]).get("last-event-id");
    if (lastEventId === null) return undefined;
    for (const state of this.#calls.values()) if (state.resumingFrom === lastEventId) return state;
    return undefined;
  }

  #observe(body: ReadableStream<Uint8Array>, state: CallState): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    const events = new EventReader((event) => {
      if (event.retry !== undefined) state.retryMs = Math.min(event.retry, RESUMPTION_LIMITS.maxRetryMs);
      if (event.id !== undefined) state.lastEventId = event.id;
    });
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (done) {
            this.#ended(state, undefined);
            controller.close();
            return;
          }
          events.push(value);
          controller.enqueue(value);
        } catch (error) {
          this.#ended(state, error);
          controller.error(error);
        }
      },
      cancel: async (reason) => {
        this.#ended(state, reason);
        await reader.cancel(reason).catch(() => undefined);
      },
    });
  }

  /** A stream of `state` ended (or a resumption failed): resume it, or give the call up. */
  #ended(state: CallState, cause: unknown, refused = false): void {
    if (state.finished || state.pending || state.transportSignal?.aborted) return;
    const transport = this.#transport;
    const message = requestOf(state.body);
    const from = state.lastEventId;
    const lost = whyNotResumable(state, cause, refused);
    // Decided on a timer in every case: a stream that ended right after the answer is settled by
    // then (the SDK delivers it in microtasks), and the call's end cancels the timer.
    if (lost !== undefined || !transport || !message || from === undefined) {
      state.pending = setTimeout(() => {
        state.pending = undefined;
        state.lose(lost ?? NO_EVENT_ID);
      }, 0);
      return;
    }
    state.pending = setTimeout(() => {
      state.pending = undefined;
      if (state.finished) return;
      state.resumptions++;
      state.resumingFrom = from;
      // `send` with a resumption token opens `GET` with `Last-Event-ID`; nothing is POSTed.
      transport.send(message, { resumptionToken: from }).catch((error: unknown) => this.#ended(state, error));
    }, state.retryMs ?? RESUMPTION_LIMITS.defaultRetryMs);
    state.pending.unref?.();
  }
}

/** The JSON-RPC request a POST body carried, or undefined. */
function requestOf(body: string | undefined): JSONRPCMessage | undefined {
  if (body === undefined) return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    return message.method === "tools/call" && message.id !== undefined
      ? (message as JSONRPCMessage)
      : undefined;
  } catch {
    return undefined;
  }
}

const NO_EVENT_ID =
  "the server closed the response stream before answering and sent no event ID to resume it from";

/** Why a call's ended stream is not resumed, or undefined when it may be. */
function whyNotResumable(state: CallState, cause: unknown, refused: boolean): string | undefined {
  // Resuming from before an oversized message would only receive it again.
  if (cause instanceof MessageTooLarge) return cause.message;
  if (refused && cause instanceof Error) return cause.message;
  if (state.lastEventId === undefined) return NO_EVENT_ID;
  if (state.resumptions >= RESUMPTION_LIMITS.maxResumptions) {
    return `the server closed the response stream ${state.resumptions + 1} times before answering; Pablo stopped resuming it`;
  }
  return undefined;
}

class CallState {
  body: string | undefined;
  lastEventId: string | undefined;
  retryMs: number | undefined;
  resumingFrom: string | undefined;
  transportSignal: AbortSignal | undefined;
  resumptions = 0;
  finished = false;
  pending: ReturnType<typeof setTimeout> | undefined;
  readonly #streams = new AbortController();
  readonly #onLost: (reason: string) => void;

  constructor(
    readonly progressToken: string,
    onLost: (reason: string) => void,
  ) {
    this.#onLost = onLost;
  }

  /** Aborts this call's streams when it ends (a resumed GET stays open otherwise). */
  get streamSignal(): AbortSignal {
    return this.#streams.signal;
  }

  lose(reason: string): void {
    if (this.finished) return;
    this.finish();
    this.#onLost(reason);
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    // Only a resumed stream is closed here; the POST stream ends with its answer.
    if (this.resumptions > 0) this.#streams.abort();
  }
}

interface SseEvent {
  readonly id: string | undefined;
  readonly retry: number | undefined;
}

/** The server-sent events of a byte stream (the fields resuming needs: id and retry). */
class EventReader {
  readonly #decoder = new TextDecoder();
  readonly #onEvent: (event: SseEvent) => void;
  #line = "";
  #id: string | undefined;
  #retry: number | undefined;
  #data = false;
  #afterCr = false;

  constructor(onEvent: (event: SseEvent) => void) {
    this.#onEvent = onEvent;
  }

  push(chunk: Uint8Array): void {
    for (const char of this.#decoder.decode(chunk, { stream: true })) {
      if (char === "\n" && this.#afterCr) {
        this.#afterCr = false;
        continue;
      }
      this.#afterCr = char === "\r";
      if (char === "\n" || char === "\r") this.#endLine();
      else this.#line += char;
    }
  }

  #endLine(): void {
    const line = this.#line;
    this.#line = "";
    if (line === "") {
      if (this.#id !== undefined || this.#retry !== undefined || this.#data) {
        this.#onEvent({ id: this.#id, retry: this.#retry });
      }
      this.#id = undefined;
      this.#retry = undefined;
      this.#data = false;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    // Data is not kept: only where to resume from, and when, matters here.
    if (field === "data") this.#data = true;
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    else if (field === "retry" && /^\d{1,9}$/.test(value)) this.#retry = Number(value);
  }
}
