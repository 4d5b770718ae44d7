import type { LookupAddress } from "node:dns";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { openMcpCatalog } from "./catalog.js";
import { checkServerUrl, guardedFetch } from "./http-transport.js";
import { isLoopbackAddress, LoopbackNameRefused, loopbackHttpFetch } from "./loopback-fetch.js";
import { sessionOver, textOf } from "./test-support/kernel-session.js";
import { noCredentials } from "./test-support/servers.js";

/** A real Streamable HTTP MCP server (the SDK's, stateless) on `host`, with one tool `where`. */
async function serveOn(host: string): Promise<{ port: number; hosts: string[]; hits: number }> {
  const seen = { port: 0, hosts: [] as string[], hits: 0 };
  const server = createServer(async (req, res) => {
    seen.hits++;
    seen.hosts.push(req.headers.host ?? "");
    const mcp = new Server({ name: "where", version: "1.0.0" }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: "where", inputSchema: { type: "object" as const, properties: {} } }],
    }));
    mcp.setRequestHandler(CallToolRequestSchema, async () => ({
      content: [{ type: "text" as const, text: `local ${req.socket.localAddress}` }],
    }));
    const transport = new StreamableHTTPServerTransport({});
    res.on("close", () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  seen.port = (server.address() as AddressInfo).port;
  return seen;
}

const resolvesTo =
  (...addresses: string[]) =>
  async (): Promise<LookupAddress[]> =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

describe("plain http to a loopback host, where allow_loopback_http is set", () => {
  it("accepts localhost, 127.0.0.0/8 and [::1] and nothing else", () => {
    for (const url of ["http://localhost:8080/mcp", "http://127.0.0.9/mcp", "http://[::1]:9/mcp"]) {
      expect(checkServerUrl(url, true)).toEqual({ url: new URL(url) });
    }
    for (const url of ["http://localhost.example.com/mcp", "http://example.test/mcp", "http://10.0.0.1/"]) {
      expect(checkServerUrl(url, true)).toEqual({
        problem: "plain http is allowed only to a loopback host (127.0.0.1, [::1], localhost); use https:",
      });
    }
    expect(checkServerUrl("http://localhost/mcp", false)).toEqual({
      problem: "plain http to loopback needs allow_loopback_http = true in the server's configuration",
    });
  });

  it("calls a server on http://localhost, resolved by the system and checked before connecting", async () => {
    const server = await serveOn("127.0.0.1");
    const mcp = await openMcpCatalog({
      servers: {
        local: {
          transport: "http",
          url: `http://localhost:${server.port}/mcp`,
          allow_loopback_http: true,
          required: true,
        },
      },
      credentials: noCredentials,
    });
    onTestFinished(() => mcp.close());
    const t = await sessionOver(mcp);
    const { result } = await t.session.call({ tool: "mcp_local_where", args: {} });
    expect(textOf(result)).toBe("local 127.0.0.1");
    // The Host header keeps the name, as a server with DNS-rebinding protection expects.
    expect(new Set(server.hosts)).toEqual(new Set([`localhost:${server.port}`]));
  });

  it("calls a server on http://[::1]", async () => {
    const server = await serveOn("::1");
    const mcp = await openMcpCatalog({
      servers: {
        six: { transport: "http", url: `http://[::1]:${server.port}/mcp`, allow_loopback_http: true },
      },
      credentials: noCredentials,
    });
    onTestFinished(() => mcp.close());
    const t = await sessionOver(mcp);
    expect(textOf((await t.session.call({ tool: "mcp_six_where", args: {} })).result)).toBe("local ::1");
  });

  it("sends nothing when localhost resolves to an address that is not loopback", async () => {
    const server = await serveOn("127.0.0.1");
    const url = `http://localhost:${server.port}/mcp`;
    const init = { method: "POST", body: "{}", headers: { "content-type": "application/json" } };
    for (const resolver of [resolvesTo("192.0.2.7"), resolvesTo("127.0.0.1", "203.0.113.5"), resolvesTo()]) {
      const attempt = guardedFetch(1024, loopbackHttpFetch(resolver))(url, init);
      await expect(attempt).rejects.toBeInstanceOf(LoopbackNameRefused);
    }
    await expect(guardedFetch(1024, loopbackHttpFetch(resolvesTo("192.0.2.7")))(url, init)).rejects.toThrow(
      "localhost resolves to 192.0.2.7, not only to loopback addresses; plain http is allowed only to loopback, so nothing was sent",
    );
    expect(server.hits).toBe(0);
    // The same request with a resolver that says loopback reaches the server.
    const reached = await guardedFetch(1024, loopbackHttpFetch(resolvesTo("127.0.0.1")))(url, init);
    await reached.body?.cancel();
    expect(server.hits).toBe(1);
  });

  it("counts as loopback only 127.0.0.0/8, ::1 and their IPv4-mapped forms", () => {
    for (const address of ["127.0.0.1", "127.255.0.3", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1"]) {
      expect(isLoopbackAddress(address)).toBe(true);
    }
    for (const address of ["0.0.0.0", "::", "10.0.0.1", "::ffff:10.0.0.1", "::ffff:a00:1", "fe80::1"]) {
      expect(isLoopbackAddress(address)).toBe(false);
    }
  });
});
