import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpListener {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Streamable HTTP on 127.0.0.1 at `/mcp`, one MCP session (and one `Server` from `makeServer`)
 * per client initialization. Requests whose Host is not this listener's loopback address, or
 * whose Origin is another site, are refused with 403 (DNS rebinding), before any session
 * lookup. Bodies are bounded to 4 MiB.
 */
export async function listenHttp(makeServer: () => Server, port: number): Promise<HttpListener> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowed: { hosts: string[]; origins: string[] } = { hosts: [], origins: [] };
  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, "internal error");
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!allowed.hosts.includes(req.headers.host ?? "")) return reply(res, 403, `invalid Host header`);
    const origin = req.headers.origin;
    if (origin !== undefined && !allowed.origins.includes(origin))
      return reply(res, 403, "invalid Origin header");
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") return reply(res, 404, "not found");
    const sessionId = header(req, "mcp-session-id");
    const existing = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (req.method !== "POST") {
      if (!existing) return reply(res, sessionId === undefined ? 400 : 404, "unknown or missing session");
      return existing.handleRequest(req, res);
    }
    const body = await readJson(req);
    if (body === TOO_LARGE) return reply(res, 413, "request body too large");
    if (body === INVALID) return reply(res, 400, "request body is not JSON");
    if (existing) return existing.handleRequest(req, res, body);
    if (sessionId !== undefined) return reply(res, 404, "unknown session");
    if (!isInitializeRequest(body)) return reply(res, 400, "the first request must be initialize");
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts: allowed.hosts,
      allowedOrigins: allowed.origins,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await makeServer().connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  const hostNames = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  allowed = { hosts: hostNames, origins: hostNames.map((h) => `http://${h}`) };
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const TOO_LARGE = Symbol("too large");
const INVALID = Symbol("invalid");

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return TOO_LARGE;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return INVALID;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
