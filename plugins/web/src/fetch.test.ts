import { defineLayer } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { startServer } from "./test-support/server.js";
import { webSession } from "./test-support/session.js";

describe("web.fetch", () => {
  it("fetches text from a server and audits the call", async () => {
    const server = await startServer();
    const { session, audit, diagnostics } = await webSession();
    expect(diagnostics).toEqual([]);
    const { result } = await session.call({
      tool: "plugin_web_fetch",
      args: { url: `${server.origin}/page` },
    });
    expect(result).toEqual({
      ok: true,
      data: {
        url: `${server.origin}/page`,
        status: 200,
        contentType: "text/plain; charset=utf-8",
        text: "hello",
        bytes: 5,
        truncated: false,
      },
    });
    expect(server.hits).toEqual(["/page"]);
    expect(audit.records).toMatchObject([{ tool: "plugin.web.fetch", decision: "allow", ok: true }]);
  });

  it("does not follow redirects", async () => {
    const server = await startServer((req, res) => {
      if (req.url === "/moved") res.writeHead(302, { location: "/secret" }).end();
      else res.writeHead(200).end("secret");
    });
    const { session } = await webSession();
    const { result } = await session.call({
      tool: "plugin_web_fetch",
      args: { url: `${server.origin}/moved` },
    });
    expect(result).toMatchObject({ ok: true, data: { status: 302, redirect: `${server.origin}/secret` } });
    expect(server.hits).toEqual(["/moved"]);
  });

  it("stops reading at the size bound", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(3 * 1024 * 1024));
    });
    const { session } = await webSession({ options: { maxBytes: 65_536 } });
    const { result } = await session.call({ tool: "plugin_web_fetch", args: { url: server.origin } });
    expect(result).toMatchObject({ ok: true, data: { bytes: 65_536, truncated: true } });
  });

  it("gives up at the time bound", async () => {
    const server = await startServer(() => {
      // Never answers.
    });
    const { session } = await webSession({ options: { timeoutMs: 300 } });
    const started = Date.now();
    const { result } = await session.call({ tool: "plugin_web_fetch", args: { url: server.origin } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("describes content that is not text instead of returning it", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "image/png", "content-length": "2048" });
      res.end(Buffer.alloc(2048, 1));
    });
    const { session } = await webSession();
    const { result } = await session.call({ tool: "plugin_web_fetch", args: { url: server.origin } });
    expect(result).toEqual({
      ok: true,
      data: {
        url: `${server.origin}/`,
        status: 200,
        contentType: "image/png",
        description: "image/png content of 2048 bytes; not returned because it is not text",
      },
    });
  });

  it("decodes the declared charset", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" });
      res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    });
    const { session } = await webSession();
    const { result } = await session.call({ tool: "plugin_web_fetch", args: { url: server.origin } });
    expect(result).toMatchObject({ ok: true, data: { text: "café" } });
  });

  it("refuses loopback unless the plugin's options allow it, before any request", async () => {
    const server = await startServer();
    const { session } = await webSession({ options: { allowLoopback: false } });
    for (const url of [server.origin, `http://localhost:${server.port}/`, `http://[::1]:${server.port}/`]) {
      const { result } = await session.call({ tool: "plugin_web_fetch", args: { url } });
      expect(result).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
    }
    expect(server.hits).toEqual([]);
  });

  it("is refused in Plan and Goal, and by a deployment that denies the net effect", async () => {
    for (const mode of ["plan", "goal"] as const) {
      const { session } = await webSession({ mode });
      const { result } = await session.call({
        tool: "plugin_web_fetch",
        args: { url: "https://example.com/" },
      });
      expect(result).toMatchObject({ ok: false, error: { code: "PLUGIN_DISABLED_IN_PLAN" } });
    }
    const layer = defineLayer({ id: "deployment", effect: { deny: [{ id: "offline", match: "net" }] } });
    const { session } = await webSession({ layers: [layer] });
    const { decision } = await session.call({
      tool: "plugin_web_fetch",
      args: { url: "https://example.com/" },
    });
    expect(decision).toMatchObject({ verdict: "deny", layer: "deployment", rule: "offline" });
  });
});
