import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createHttpTransport } from "../http-transport.js";
import type { ResolvedHttpServer } from "../resolved-server.js";
import { McpOAuthCode, McpOAuthError } from "./codes.js";

/** What a 401 or 403 said in its `WWW-Authenticate` challenge. */
export interface Challenge {
  readonly status: 401 | 403;
  readonly resourceMetadataUrl?: URL | undefined;
  readonly scope?: string | undefined;
  readonly error?: string | undefined;
}

export type ProbeResult =
  | { readonly kind: "ok" }
  | { readonly kind: "challenge"; readonly challenge: Challenge };

/**
 * Connects as an MCP client would (initialize, then `tools/list`, both harmless to repeat) with
 * `token` as the bearer when given, and reports whether the server let it in or what it asked
 * for. Some servers let `initialize` through and challenge only later requests, hence the list.
 */
export async function probeServer(
  server: ResolvedHttpServer,
  url: URL,
  headers: Readonly<Record<string, string>>,
  token: string | undefined,
  signal: AbortSignal,
): Promise<ProbeResult> {
  let challenge: Challenge | undefined;
  const observe = (inner: FetchLike): FetchLike => {
    return async (input, init) => {
      const href = typeof input === "string" ? input : input.href;
      const sent = new Headers(init?.headers);
      if (token !== undefined && href === url.href) sent.set("authorization", `Bearer ${token}`);
      const response = await inner(input, { ...init, headers: sent });
      if ((response.status === 401 || response.status === 403) && challenge === undefined) {
        challenge = { status: response.status, ...extractWWWAuthenticateParams(response) };
      }
      return response;
    };
  };
  const transport = createHttpTransport(url, headers, server.maxMessageBytes, observe);
  const client = new Client({ name: "pablo", version: "0.1.0" }, { capabilities: {} });
  const timeout = server.startupTimeoutMs;
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(timeout)]);
  try {
    await client.connect(transport, { signal: bounded, timeout });
    await client.listTools({}, { signal: bounded, timeout });
    return { kind: "ok" };
  } catch (error) {
    if (challenge) return { kind: "challenge", challenge };
    if (signal.aborted) throw new McpOAuthError(McpOAuthCode.CANCELLED, "the login was cancelled");
    const message = error instanceof Error ? error.message : String(error);
    throw new McpOAuthError(
      McpOAuthCode.FAILED,
      `could not reach MCP server ${server.name}: ${message.slice(0, 300)}`,
    );
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}
