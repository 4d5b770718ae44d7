import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type AuthorityLayer, evaluateAuthority } from "@pablo/kernel";
import { checkServerUrl } from "../http-transport.js";
import { loopbackHttpFetch } from "../loopback-fetch.js";
import { McpOAuthCode, McpOAuthError } from "./codes.js";

/** Largest metadata, registration or token response accepted. */
export const MAX_OAUTH_RESPONSE_BYTES = 256 * 1024;
/** Statuses whose responses cannot carry a body. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
/** Time allowed for one OAuth request. */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;

export interface OAuthFetchOptions {
  /** The task's or command's authority layers: each URL is a `net` access decided by them. */
  readonly layers: readonly AuthorityLayer[];
  /** The server's `allow_loopback_http`: plain http is allowed only to loopback, and only then. */
  readonly allowLoopbackHttp: boolean;
  /** Ends every request in flight (login cancelled). */
  readonly signal?: AbortSignal;
  /** Called with each URL requested, after it was allowed (tests and `--verbose` read it). */
  readonly onRequest?: (url: string, method: string) => void;
}

/**
 * The `fetch` every OAuth request goes through (metadata, registration, token, refresh): the URL
 * must pass the same endpoint check as the MCP server's own (https; loopback http only with
 * `allow_loopback_http`) and the kernel's `net` dimension; redirects are refused, bodies bounded,
 * and each request ends after {@link OAUTH_REQUEST_TIMEOUT_MS}. It never adds credentials: the
 * SDK adds client authentication to the token endpoint only.
 */
export function oauthFetch(options: OAuthFetchOptions): FetchLike {
  const plainHttp = loopbackHttpFetch();
  return async (input, init) => {
    const href = typeof input === "string" ? input : input.href;
    const method = init?.method ?? "GET";
    refuseUnlessAllowed(href, options);
    options.onRequest?.(href, method);
    const signals = [AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS)];
    if (options.signal) signals.push(options.signal);
    if (init?.signal) signals.push(init.signal);
    // Plain http is loopback only (refuseUnlessAllowed); it goes where the resolved name was checked.
    const send = href.startsWith("http:") ? plainHttp : fetch;
    const payload = init?.body instanceof URLSearchParams ? init.body.toString() : init?.body;
    const response = await send(href, {
      ...init,
      ...(payload === undefined ? {} : { body: payload }),
      redirect: "manual",
      signal: AbortSignal.any(signals),
    });
    if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => undefined);
      throw new McpOAuthError(
        McpOAuthCode.NET_REFUSED,
        `${describe(href)} answered with a redirect (HTTP ${response.status}); Pablo does not follow redirects`,
      );
    }
    const body = NULL_BODY_STATUS.has(response.status) ? null : await readBounded(response, href);
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Throws {@link McpOAuthError} `NET_REFUSED` unless `href` may be requested. */
export function refuseUnlessAllowed(
  href: string,
  options: Pick<OAuthFetchOptions, "layers" | "allowLoopbackHttp">,
): void {
  const checked = checkServerUrl(href, options.allowLoopbackHttp);
  if ("problem" in checked) {
    throw new McpOAuthError(McpOAuthCode.NET_REFUSED, `${describe(href)} is refused: ${checked.problem}`);
  }
  const decision = evaluateAuthority(options.layers, [{ dimension: "net", url: href }]);
  if (decision.verdict === "deny") {
    throw new McpOAuthError(
      McpOAuthCode.NET_REFUSED,
      `${describe(href)} is denied by ${decision.layer}/${decision.rule}: ${decision.reason}`,
    );
  }
}

/** Origin and path only: a query may carry an authorization code or state. */
function describe(href: string): string {
  try {
    const url = new URL(href);
    return `${url.origin}${url.pathname}`;
  } catch {
    return "the authorization server URL";
  }
}

async function readBounded(response: Response, href: string): Promise<Uint8Array | null> {
  if (!response.body) return null;
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_OAUTH_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new McpOAuthError(
        McpOAuthCode.FAILED,
        `${describe(href)} sent more than ${MAX_OAUTH_RESPONSE_BYTES} bytes; the response was dropped`,
      );
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
