import { describe, expect, it, onTestFinished } from "vitest";
import { openMcpCatalog } from "./catalog.js";
import { listen, startFixtureHttp } from "./test-support/http-fixture.js";
import { sessionOver, textOf } from "./test-support/kernel-session.js";
import { noCredentials, testCredentials } from "./test-support/servers.js";

const http = (url: string, extra: Record<string, unknown> = {}) => ({
  transport: "http",
  url,
  allow_loopback_http: true,
  ...extra,
});

describe("Streamable HTTP guarantees", () => {
  it("never follows a redirect, even to a working server on the same origin", async () => {
    const target = await startFixtureHttp([
      { name: "ping", call: () => ({ content: [{ type: "text", text: "pong" }] }) },
    ]);
    onTestFinished(() => target.close());
    const seen: string[] = [];
    const redirector = await listen((req, res) => {
      seen.push(req.method ?? "");
      res.writeHead(307, { location: target.url }).end();
    });
    onTestFinished(() => redirector.close());
    const mcp = await openMcpCatalog({ servers: { hop: http(redirector.url) }, credentials: noCredentials });
    onTestFinished(() => mcp.close());
    expect(mcp.providers).toEqual([]);
    expect(mcp.diagnostics).toEqual([
      {
        server: "hop",
        code: "MCP_SERVER_FAILED",
        message: "the server answered with a redirect (HTTP 307); Pablo does not follow redirects",
      },
    ]);
    expect(seen).toEqual(["POST"]);
    expect(target.hits).toEqual([]);
  });

  it("sends header credentials only to their own server, and redacts them from results", async () => {
    const echoHeaders = {
      name: "headers",
      call: (req: { headers: Record<string, unknown> }) => ({
        content: [{ type: "text" as const, text: JSON.stringify(req.headers["x-evidence-token"] ?? null) }],
      }),
    };
    const evidence = await startFixtureHttp([echoHeaders]);
    const other = await startFixtureHttp([echoHeaders]);
    onTestFinished(() => evidence.close());
    onTestFinished(() => other.close());
    const mcp = await openMcpCatalog({
      servers: {
        evidence: http(evidence.url, { headers: { "x-evidence-token": "evidence" } }),
        other: http(other.url),
      },
      credentials: testCredentials({
        evidence: { consumer: "mcp.headers", destination: "evidence", value: "evidence-token-value" },
      }),
    });
    onTestFinished(() => mcp.close());
    const { session } = await sessionOver(mcp);
    expect(textOf((await session.call({ tool: "mcp_evidence_headers", args: {} })).result)).toBe(
      '"[REDACTED]"',
    );
    expect(textOf((await session.call({ tool: "mcp_other_headers", args: {} })).result)).toBe("null");
  });

  it("reports a dropped connection as remote completion unknown, and never replays the call", async () => {
    let dropped: () => void = () => undefined;
    const socketClosed = new Promise<void>((resolve) => {
      dropped = resolve;
    });
    const server = await startFixtureHttp([
      {
        name: "drop",
        call: (req) => {
          req.socket.once("close", () => dropped());
          setTimeout(() => req.socket.destroy(), 20);
          return new Promise(() => {});
        },
      },
      { name: "ping", call: () => ({ content: [{ type: "text", text: "pong" }] }) },
    ]);
    onTestFinished(() => server.close());
    const mcp = await openMcpCatalog({ servers: { flaky: http(server.url) }, credentials: noCredentials });
    onTestFinished(() => mcp.close());
    const { session, audit } = await sessionOver(mcp);
    const { result } = await session.call({ tool: "mcp_flaky_drop", args: {} });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "MCP_SERVER_DISCONNECTED", details: { remoteCompletion: "unknown" } },
    });
    expect(audit.records.at(-1)?.notes).toEqual({ remoteCompletion: "unknown" });
    // The transport never reconnects (maxRetries 0): once the dropped socket is closed, a replay
    // could only arrive before the next call, which the hit list would then show first.
    await socketClosed;
    expect(server.hits).toEqual(["drop"]);
    expect(textOf((await session.call({ tool: "mcp_flaky_ping", args: {} })).result)).toBe("pong");
    expect(server.hits).toEqual(["drop", "ping"]);
  });

  it("refuses a response larger than max_message_bytes", async () => {
    const flood = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: 0, result: { padding: "x".repeat(512 * 1024) } }));
    });
    onTestFinished(() => flood.close());
    const mcp = await openMcpCatalog({
      servers: { flood: http(flood.url, { max_message_bytes: 64 * 1024 }) },
      credentials: noCredentials,
    });
    expect(mcp.diagnostics).toMatchObject([{ server: "flood", code: "MCP_SERVER_FAILED" }]);
    expect(mcp.diagnostics[0]?.message).toContain("larger than 65536 bytes");
  });
});
