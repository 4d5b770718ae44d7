import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { PabloError, type Session } from "@pablo/kernel";
import { listenHttp } from "./http-listener.js";
import type { ServeBridge } from "./serve-bridge.js";
import { toCallToolResult, toMcpTool } from "./served-tools.js";

export type ServeOptions = (
  | {
      readonly transport: "stdio";
      /** Defaults: `process.stdin` / `process.stdout`. */
      readonly stdin?: Readable;
      readonly stdout?: Writable;
    }
  | {
      readonly transport: "http";
      /** 0 picks a free port; the returned `url` names it. */
      readonly port: number;
      /** Only loopback is served. */
      readonly host?: "127.0.0.1";
    }
) & {
  /** The bridge whose `events` and `broker` the session's kernel was created with. */
  readonly bridge?: ServeBridge;
  readonly serverInfo?: { readonly name: string; readonly version: string };
};

export interface ServedCatalog {
  /** For HTTP: `http://127.0.0.1:PORT/mcp`. */
  readonly url?: string;
  /**
   * Settles when serving has ended: over stdio when the client closes its end (stdin ends) or
   * `close()` is called; over HTTP when `close()` is called. A host then closes the task.
   */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_SERVER = { name: "pablo", version: "0.1.0" } as const;

/**
 * Serves a kernel session's governed catalog as an MCP server. `tools/list` offers exactly the
 * tools the session may see (mode and authority layers applied; deferred tools included), and
 * every `tools/call` is dispatched through `session.call`: policy, permission, limits, audit and
 * events all apply, and the MCP request's cancellation aborts the call. With a bridge,
 * permission prompts become elicitations and progress becomes progress notifications.
 */
export async function serveCatalog(session: Session, options: ServeOptions): Promise<ServedCatalog> {
  const makeServer = () => createMcpServer(session, options);
  if (options.transport === "http") {
    if ((options.host ?? "127.0.0.1") !== "127.0.0.1") {
      throw new PabloError("INVALID_ARGUMENT", "serveCatalog serves HTTP on 127.0.0.1 only");
    }
    const listener = await listenHttp(makeServer, options.port);
    let ended: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      ended = resolve;
    });
    return { url: listener.url, closed, close: () => listener.close().finally(ended) };
  }
  const server = makeServer();
  const stdin = options.stdin ?? process.stdin;
  const closed = new Promise<void>((resolve) => {
    stdin.once("end", () => resolve());
    stdin.once("close", () => resolve());
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport(stdin, options.stdout));
  return { closed, close: () => server.close() };
}

function createMcpServer(session: Session, options: ServeOptions): Server {
  const server = new Server(options.serverInfo ?? DEFAULT_SERVER, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: session.visibleTools().map(toMcpTool),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const callId = `mcp_${randomUUID()}`;
    const progressToken = request.params._meta?.progressToken;
    const unregister = options.bridge?.register(callId, {
      server,
      requestId: extra.requestId,
      progressToken,
      sendProgress: (progress, message) => {
        if (progressToken === undefined) return;
        void extra
          .sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, message },
          })
          .catch(() => undefined);
      },
    });
    try {
      const outcome = await session.call({
        tool: request.params.name,
        args: request.params.arguments ?? {},
        callId,
        signal: extra.signal,
      });
      // The call's audit record is on disk before its result reaches the client.
      await session.flushAudit();
      return toCallToolResult(outcome);
    } finally {
      unregister?.();
    }
  });
  return server;
}
