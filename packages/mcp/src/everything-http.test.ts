import { readFileSync } from "node:fs";
import { MemoryEventSink } from "@pablo/kernel";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type McpCatalog, openMcpCatalog } from "./catalog.js";
import { sessionOver, type TestSession, textOf } from "./test-support/kernel-session.js";
import { noCredentials, type RunningServer, startEverythingHttp } from "./test-support/servers.js";

/** Local addresses listening on `port`, from /proc/net/tcp and tcp6 (hex, as the kernel writes them). */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols[1]?.endsWith(`:${hexPort}`) && cols[3] === "0A")
      .map((cols) => cols[1]?.split(":")[0] ?? ""),
  );
}

describe("server-everything over Streamable HTTP on 127.0.0.1", () => {
  let everything: RunningServer;
  let mcp: McpCatalog;
  let t: TestSession;
  const events = new MemoryEventSink();

  beforeAll(async () => {
    everything = await startEverythingHttp();
    mcp = await openMcpCatalog({
      servers: { web: { transport: "http", url: everything.url, allow_loopback_http: true, required: true } },
      credentials: noCredentials,
    });
    t = await sessionOver(mcp, { events, kernel: { captureContent: true } });
  });
  afterAll(async () => {
    await mcp?.close();
    await everything?.stop();
  });

  it("is bound to loopback only", () => {
    expect(listeners(Number(new URL(everything.url).port))).toEqual(["0100007F"]);
  });

  it("lists the tools, with the same names and scope as over stdio", () => {
    expect(t.session.catalog.entries.map((e) => e.providerName)).toContain("mcp_web_echo");
    expect(t.session.catalog.resolve("mcp_web_echo")?.definition.scope).toEqual([
      { dimension: "mcp.server", value: "web" },
      { dimension: "mcp.tool", value: "mcp/web/echo" },
    ]);
  });

  it("calls echo and get-sum", async () => {
    expect(
      textOf((await t.session.call({ tool: "mcp_web_echo", args: { message: "over http" } })).result),
    ).toBe("Echo: over http");
    expect(
      textOf((await t.session.call({ tool: "mcp_web_get-sum", args: { a: 2, b: 40 } })).result),
    ).toContain("42");
  });

  it("passes structured content", async () => {
    const { result } = await t.session.call({
      tool: "mcp_web_get-structured-content",
      args: { location: "New York" },
    });
    expect(result).toMatchObject({ ok: true, data: { structured: { conditions: expect.any(String) } } });
  });

  it("delivers every progress notification before the call settles", async () => {
    for (let run = 0; run < 3; run++) {
      const { result, audit } = await t.session.call({
        tool: "mcp_web_trigger-long-running-operation",
        args: { duration: 0.3, steps: 3 },
      });
      expect(result.ok).toBe(true);
      const progress = events.events.filter((e) => e.type === "tool.progress" && e.callId === audit.callId);
      expect(progress).toHaveLength(3);
    }
  });

  it("refuses image content, unknown tools and bad arguments", async () => {
    const image = await t.session.call({ tool: "mcp_web_get-tiny-image", args: {} });
    expect(image.result).toMatchObject({ ok: false, error: { code: "UNSUPPORTED_CONTENT" } });
    const unknown = await t.session.call({ tool: "mcp_web_missing", args: {} });
    expect(unknown.result).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
    const bad = await t.session.call({ tool: "mcp_web_get-sum", args: { a: "2", b: 40 } });
    expect(bad.result).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
  });
});

describe("HTTP endpoint rules", () => {
  it("requires the explicit loopback opt-in for plain http, and never allows it elsewhere", async () => {
    const mcp = await openMcpCatalog({
      servers: {
        noOptIn: { transport: "http", url: "http://127.0.0.1:9/mcp" },
        byName: { transport: "http", url: "http://localhost.example.com/mcp", allow_loopback_http: true },
        remote: { transport: "http", url: "http://example.com/mcp", allow_loopback_http: true },
        userinfo: { transport: "http", url: "https://user:pw@example.com/mcp" },
      },
      credentials: noCredentials,
    });
    onTestFinished(() => mcp.close());
    expect(mcp.diagnostics).toMatchInlineSnapshot(`
      [
        {
          "code": "MCP_SERVER_CONFIG",
          "message": "plain http to loopback needs allow_loopback_http = true in the server's configuration",
          "server": "noOptIn",
        },
        {
          "code": "MCP_SERVER_CONFIG",
          "message": "plain http is allowed only to a loopback host (127.0.0.1, [::1], localhost); use https:",
          "server": "byName",
        },
        {
          "code": "MCP_SERVER_CONFIG",
          "message": "plain http is allowed only to a loopback host (127.0.0.1, [::1], localhost); use https:",
          "server": "remote",
        },
        {
          "code": "MCP_SERVER_CONFIG",
          "message": "url must not carry user information; use headers with credentials",
          "server": "userinfo",
        },
      ]
    `);
  });
});
