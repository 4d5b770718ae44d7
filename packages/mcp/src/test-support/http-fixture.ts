import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

export interface FixtureTool {
  readonly name: string;
  readonly call: (request: IncomingMessage) => CallToolResult | Promise<CallToolResult>;
}

export interface Listening {
  readonly url: string;
  readonly hits: string[];
  close(): Promise<void>;
}

/**
 * A real Streamable HTTP MCP server (the SDK's, stateless) on 127.0.0.1, in this process, whose
 * tools see the HTTP request that carried the call. `hits` records every tool invocation.
 */
export function startFixtureHttp(tools: readonly FixtureTool[]): Promise<Listening> {
  const hits: string[] = [];
  return listen(async (req, res) => {
    const server = new Server({ name: "fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: tools.map((t) => ({ name: t.name, inputSchema: { type: "object" as const, properties: {} } })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      hits.push(request.params.name);
      const tool = tools.find((t) => t.name === request.params.name);
      return tool ? tool.call(req) : { content: [{ type: "text", text: "unknown" }], isError: true };
    });
    const transport = new StreamableHTTPServerTransport({});
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }, hits);
}

/** A plain HTTP server on 127.0.0.1 answering every request with `handler`. */
export function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
  hits: string[] = [],
): Promise<Listening> {
  const server: HttpServer = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        hits,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
