/**
 * The only `fetch` the A2A client uses. It is handed to both the card fetch and the SDK's
 * JSON-RPC transport, so every request the package makes passes here:
 * - redirects are never followed (`redirect: "manual"`; a 3xx is {@link RedirectRefused}, naming
 *   the target), so neither a card nor an RPC can move the bearer somewhere else;
 * - the bearer is added only to a request whose URL is exactly the configured endpoint, and any
 *   Authorization header the SDK or a caller set is dropped everywhere else;
 * - a JSON body, or one server-sent event, longer than `maxMessageBytes` errors the stream
 *   ({@link MessageTooLarge}), so memory stays bounded whatever the remote sends.
 */
export interface GuardedFetchOptions {
  /** The exact RPC endpoint (canonical href): the one URL the bearer may reach. */
  readonly endpoint: string;
  readonly bearer?: string;
  readonly maxMessageBytes: number;
}

export class RedirectRefused extends Error {
  constructor(
    readonly status: number,
    readonly from: string,
    readonly location: string | null,
  ) {
    super(
      `${from} answered ${status} redirecting to ${location ?? "(no Location)"}; redirects are never followed`,
    );
    this.name = "RedirectRefused";
  }
}

export class MessageTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the remote sent a message or event over ${limit} bytes`);
    this.name = "MessageTooLarge";
  }
}

export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.delete("authorization");
    if (options.bearer !== undefined && sameUrl(url, options.endpoint))
      headers.set("authorization", `Bearer ${options.bearer}`);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => undefined);
      throw new RedirectRefused(response.status, url, response.headers.get("location"));
    }
    if (!response.body) return response;
    const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    return new Response(response.body.pipeThrough(messageBound(options.maxMessageBytes, sse)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return guarded as typeof fetch;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

function messageBound(maxBytes: number, sse: boolean): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  let previousNewline = false;
  return new TransformStream({
    transform(chunk, controller) {
      if (!sse) bytes += chunk.byteLength;
      else {
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
