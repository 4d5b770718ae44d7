import { MemoryEventSink } from "@pablo/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpCatalog, openMcpCatalog } from "./catalog.js";
import { sessionOver, type TestSession } from "./test-support/kernel-session.js";
import { everythingStdio, testCredentials } from "./test-support/servers.js";

describe("server-everything over stdio", () => {
  let mcp: McpCatalog;
  let t: TestSession;
  const events = new MemoryEventSink();

  beforeAll(async () => {
    mcp = await openMcpCatalog({
      servers: { everything: everythingStdio({ env: { RECORDS_TOKEN: "records" }, required: true }) },
      credentials: testCredentials({
        records: { consumer: "mcp.environment", destination: "everything", value: "s3cr3t-records-token" },
      }),
    });
    t = await sessionOver(mcp, { events, kernel: { captureContent: true } });
  });
  afterAll(() => mcp?.close());

  it("lists the server's tools under qualified names, deferred because there are many", () => {
    const entries = t.session.catalog.entries.map((e) => [e.name, e.providerName, e.definition.deferred]);
    expect(entries).toMatchInlineSnapshot(`
      [
        [
          "mcp/everything/echo",
          "mcp_everything_echo",
          true,
        ],
        [
          "mcp/everything/get-annotated-message",
          "mcp_everything_get-annotated-message",
          true,
        ],
        [
          "mcp/everything/get-env",
          "mcp_everything_get-env",
          true,
        ],
        [
          "mcp/everything/get-resource-links",
          "mcp_everything_get-resource-links",
          true,
        ],
        [
          "mcp/everything/get-resource-reference",
          "mcp_everything_get-resource-reference",
          true,
        ],
        [
          "mcp/everything/get-structured-content",
          "mcp_everything_get-structured-content",
          true,
        ],
        [
          "mcp/everything/get-sum",
          "mcp_everything_get-sum",
          true,
        ],
        [
          "mcp/everything/get-tiny-image",
          "mcp_everything_get-tiny-image",
          true,
        ],
        [
          "mcp/everything/gzip-file-as-resource",
          "mcp_everything_gzip-file-as-resource",
          true,
        ],
        [
          "mcp/everything/toggle-simulated-logging",
          "mcp_everything_toggle-simulated-logging",
          true,
        ],
        [
          "mcp/everything/toggle-subscriber-updates",
          "mcp_everything_toggle-subscriber-updates",
          true,
        ],
        [
          "mcp/everything/trigger-long-running-operation",
          "mcp_everything_trigger-long-running-operation",
          true,
        ],
      ]
    `);
    expect(mcp.diagnostics).toMatchInlineSnapshot(`
      [
        {
          "code": "MCP_TOOL_UNSUPPORTED",
          "message": "the tool requires task-based execution, which Pablo does not use",
          "server": "everything",
          "tool": "simulate-research-query",
        },
      ]
    `);
  });

  it("offers the model exactly the closed schema it validates against", () => {
    const echo = t.session.catalog.resolve("mcp_everything_echo");
    expect(echo?.inputJsonSchema).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "message": {
            "description": "Message to echo",
            "type": "string",
          },
        },
        "required": [
          "message",
        ],
        "type": "object",
      }
    `);
    expect(echo?.definition).toMatchObject({ risk: "medium", category: "external", effects: ["mcp"] });
    expect(echo?.definition.scope).toMatchInlineSnapshot(`
      [
        {
          "dimension": "mcp.server",
          "value": "everything",
        },
        {
          "dimension": "mcp.tool",
          "value": "mcp/everything/echo",
        },
        {
          "dimension": "mcp.launcher",
          "path": "/usr/bin/node",
        },
      ]
    `);
  });

  it("calls echo", async () => {
    const { result } = await t.session.call({ tool: "mcp_everything_echo", args: { message: "hello" } });
    expect(result).toEqual({ ok: true, data: { text: ["Echo: hello"] } });
  });

  it("passes structured content through, validated against the output schema", async () => {
    const { result } = await t.session.call({
      tool: "mcp/everything/get-structured-content",
      args: { location: "Chicago" },
    });
    expect(result.ok).toBe(true);
    const data = result.ok ? (result.data as { structured: Record<string, unknown> }) : undefined;
    expect(Object.keys(data?.structured ?? {}).sort()).toEqual(["conditions", "humidity", "temperature"]);
  });

  it("delivers every progress notification before the call settles", async () => {
    for (let run = 0; run < 3; run++) {
      const before = events.events.length;
      const { result, audit } = await t.session.call({
        tool: "mcp/everything/trigger-long-running-operation",
        args: { duration: 0.3, steps: 3 },
      });
      expect(result.ok).toBe(true);
      const progress = events.events
        .slice(before)
        .filter((e) => e.type === "tool.progress" && e.callId === audit.callId)
        .map((e) => (e.type === "tool.progress" ? e.data : undefined));
      expect(progress).toEqual([
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
        { progress: 3, total: 3 },
      ]);
    }
  });

  it("refuses image content instead of flattening it", async () => {
    const { result } = await t.session.call({ tool: "mcp/everything/get-tiny-image", args: {} });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "UNSUPPORTED_CONTENT", details: { types: ["image"] } },
    });
  });

  it("refuses an unknown tool before anything is sent", async () => {
    const { result } = await t.session.call({ tool: "mcp/everything/nope", args: {} });
    expect(result).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
  });

  it("refuses bad arguments against the closed schema", async () => {
    const missing = await t.session.call({ tool: "mcp_everything_echo", args: {} });
    expect(missing.result).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
    const extra = await t.session.call({ tool: "mcp_everything_echo", args: { message: "a", smuggled: 1 } });
    expect(extra.result).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
    const wrongEnum = await t.session.call({
      tool: "mcp/everything/get-structured-content",
      args: { location: "Paris" },
    });
    expect(wrongEnum.result).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
  });

  it("gives the server a cleared environment plus exactly its credential, redacted on the way back", async () => {
    const { result } = await t.session.call({ tool: "mcp/everything/get-env", args: {} });
    expect(result.ok).toBe(true);
    const text = result.ok ? (result.data as { text: string[] }).text.join("") : "";
    expect(JSON.parse(text)).toEqual({ RECORDS_TOKEN: "[REDACTED]" });
  });

  it("audits every call with the deciding rule", () => {
    const echo = t.audit.records.find((r) => r.tool === "mcp/everything/echo" && r.ok);
    expect(echo).toMatchObject({ decision: "allow", providerName: "mcp_everything_echo" });
  });
});
