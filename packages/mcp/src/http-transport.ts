import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { HttpResumption } from "./http-resumption.js";
import { loopbackHttpFetch } from "./loopback-fetch.js";
import { MessageTooLarge, RedirectRefused } from "./transport-errors.js";

/**
 * Checks a configured endpoint: `https:` always; `http:` only to a loopback host (127.0.0.0/8,
 * [::1] or `localhost`) and only when the deployment set `allow_loopback_http`. `localhost` is a
 * name: it is resolved when the connection is made and every address it has must be loopback
 * ({@link loopbackHttpFetch}), so a resolver cannot send plain http elsewhere. URLs with user
 * information are refused (credentials come only from `headers`).
 */
export function checkServerUrl(text: string, allowLoopbackHttp: boolean): { url: URL } | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: `url ${JSON.stringify(text)} is not a valid URL` };
  }
  if (url.username !== "" || url.password !== "") {
    return { problem: "url must not carry user information; use headers with credentials" };
  }
  if (url.protocol === "https:") return { url };
  if (url.protocol !== "http:") return { problem: `url scheme ${url.protocol} is not supported; use https:` };
  if (!isLoopbackHost(url.hostname)) {
    return {
      problem: "plain http is allowed only to a loopback host (127.0.0.1, [::1], localhost); use https:",
    };
  }
  if (!allowLoopbackHttp) {
    return {
      problem: "plain http to loopback needs allow_loopback_http = true in the server's configuration",
    };
  }
  return { url };
}

/**
 * A loopback host as the WHATWG URL parser writes it: a literal 127.0.0.0/8 or [::1], or the name
 * `localhost` (checked again, address by address, when it is resolved to connect).
 */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === "[::1]" || hostname === "localhost") return true;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return octets?.slice(1).every((o) => Number(o) <= 255) ?? false;
}

/**
 * `fetch` that never follows a redirect (any 3xx, or an opaque redirect, is an error) and
 * bounds each message the server sends: a JSON body, or one server-sent event, longer than
 * `maxMessageBytes` errors the stream.
 */
export function guardedFetch(maxMessageBytes: number, plainHttp: FetchLike = loopbackHttpFetch()): FetchLike {
  return async (url, init) => {
    // Plain http is loopback only (checkServerUrl), sent where the resolved name was checked.
    const href = typeof url === "string" ? url : url.href;
    const send = href.startsWith("http:") ? plainHttp : fetch;
    const response = await send(url, { ...init, redirect: "manual" });
    if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => undefined);
      throw new RedirectRefused(response.status);
    }
    if (!response.body) return response;
    const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    return new Response(response.body.pipeThrough(messageBound(maxMessageBytes, sse)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * The Streamable HTTP client transport of the SDK, configured so that nothing is followed or
 * replayed: redirects fail, and a tool call is never POSTed twice. A call's response stream that
 * the server ends before answering is resumed, not replayed (see {@link HttpResumption}); when it
 * cannot be, the call ends as a disconnect whose remote completion is unknown.
 */
export function createHttpTransport(
  url: URL,
  headers: Readonly<Record<string, string>>,
  maxMessageBytes: number,
  /** Wraps the guarded fetch, for OAuth: adds the server's bearer token, reads its challenges. */
  authorize?: (fetch: FetchLike) => FetchLike,
): StreamableHTTPClientTransport {
  const resumption = new HttpResumption();
  const guarded = resumption.wrap(guardedFetch(maxMessageBytes));
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: authorize ? authorize(guarded) : guarded,
    requestInit: { headers: { ...headers } },
    // The SDK never reconnects by itself: a tool call's stream is resumed by HttpResumption
    // (bounded, after the server's retry delay, GET with Last-Event-ID); other streams are not.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  resumption.attach(transport);
  return transport;
}

function messageBound(maxBytes: number, sse: boolean): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  let previousNewline = false;
  return new TransformStream({
    transform(chunk, controller) {
      if (!sse) {
        bytes += chunk.byteLength;
      } else {
        // An event ends at a blank line; count the bytes since the last one.
        for (const byte of chunk) {
          if (byte === 0x0a) {
            if (previousNewline) bytes = 0;
            previousNewline = true;
          } else if (byte !== 0x0d) {
            previousNewline = false;
            bytes++;
          }
        }
      }
      if (bytes > maxBytes) controller.error(new MessageTooLarge(maxBytes));
      else controller.enqueue(chunk);
    },
  });
}
