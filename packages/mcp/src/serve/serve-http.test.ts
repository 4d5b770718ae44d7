import { execFile } from "node:child_process";
import { request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createCatalog, createKernel, defineLayer, MemoryAuditSink } from "@pablo/kernel";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { demoTools } from "../test-support/demo-tools.js";
import { type ServedCatalog, serveCatalog } from "./serve.js";
import { createServeBridge } from "./serve-bridge.js";

const INSPECTOR = createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/build/cli.js");
const textOf = (result: object): string =>
  (("content" in result ? (result.content as Array<{ text?: string }>) : []) ?? [])
    .map((b) => b.text ?? "")
    .join("");

describe("serveCatalog over Streamable HTTP", () => {
  const audit = new MemoryAuditSink();
  let served: ServedCatalog;
  const elicitations: string[] = [];

  beforeAll(async () => {
    const bridge = createServeBridge();
    const kernel = createKernel({ audit, events: bridge.events, broker: bridge.broker });
    const session = kernel.openSession({
      catalog: createCatalog(demoTools()),
      permission: { mode: "ask" },
      layers: [
        defineLayer({ id: "deployment", tool: { deny: [{ id: "no-secret", match: "demo.secret" }] } }),
      ],
    });
    served = await serveCatalog(session, { transport: "http", port: 0, bridge });
  });
  afterAll(() => served?.close());

  async function connect(answer?: "allow-once" | "deny"): Promise<Client> {
    const client = new Client(
      { name: "sdk-test", version: "1.0.0" },
      { capabilities: answer ? { elicitation: { form: {} } } : {} },
    );
    if (answer) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        elicitations.push(request.params.message);
        return { action: "accept", content: { decision: answer } };
      });
    }
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url ?? "")));
    onTestFinished(() => client.close());
    return client;
  }

  it("listens on 127.0.0.1 only", () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("lists exactly the tools the session may see, with their closed schemas", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["demo_echo", "demo_progress", "demo_risky"]);
    expect(tools[0]?.inputSchema).toEqual({
      type: "object",
      properties: { text: { type: "string", description: "Text to echo." } },
      required: ["text"],
      additionalProperties: false,
    });
  });

  it("runs a call through the kernel pipeline and audits it", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "demo_echo", arguments: { text: "hi" } });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(textOf(result))).toEqual({ ok: true, data: { echoed: "hi" } });
    expect(audit.records.at(-1)).toMatchObject({ tool: "demo.echo", decision: "allow", ok: true });
  });

  it("returns denials, bad arguments and unknown tools as error results", async () => {
    const client = await connect();
    const denied = await client.callTool({ name: "demo_secret", arguments: {} });
    expect(denied.isError).toBe(true);
    expect(JSON.parse(textOf(denied))).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", details: { rule: "no-secret" } },
    });
    const bad = await client.callTool({ name: "demo_echo", arguments: { text: 1 } });
    expect(JSON.parse(textOf(bad))).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
    const unknown = await client.callTool({ name: "nope", arguments: {} });
    expect(JSON.parse(textOf(unknown))).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
  });

  it("forwards progress as notifications before the result", async () => {
    const client = await connect();
    const seen: number[] = [];
    const result = await client.callTool({ name: "demo_progress", arguments: {} }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(JSON.parse(textOf(result))).toEqual({ ok: true, data: "finished" });
    expect(seen).toEqual([1, 2, 3]);
  });

  it("turns a permission prompt into an elicitation when the client supports it", async () => {
    const client = await connect("allow-once");
    const result = await client.callTool({ name: "demo_risky", arguments: {} });
    expect(JSON.parse(textOf(result))).toMatchObject({ ok: true, data: "did the risky thing" });
    expect(elicitations.at(-1)).toContain("Allow demo_risky (medium risk)?");
    expect(audit.records.at(-1)).toMatchObject({ prompted: true, permissionAnswer: "allow-once" });
  });

  it("respects a denial given through elicitation", async () => {
    const client = await connect("deny");
    const result = await client.callTool({ name: "demo_risky", arguments: {} });
    expect(JSON.parse(textOf(result))).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
  });

  it("fails closed when the client cannot be asked", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "demo_risky", arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
  });

  it("refuses a foreign Host header (DNS rebinding)", async () => {
    const url = new URL(served.url ?? "");
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: url.port,
          path: "/mcp",
          method: "POST",
          headers: { host: "evil.example", "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(status).toBe(403);
  });

  it("works with the MCP Inspector CLI", async () => {
    const inspect = (...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        [INSPECTOR, "--cli", served.url ?? "", "--transport", "http", ...args],
        {
          // The inspector checks for `../package.json` relative to its working directory.
          cwd: fileURLToPath(new URL("..", import.meta.url)),
          timeout: 60_000,
        },
      );
    const listed = JSON.parse((await inspect("--method", "tools/list")).stdout) as {
      tools: Array<{ name: string }>;
    };
    expect(listed.tools.map((t) => t.name)).toEqual(["demo_echo", "demo_progress", "demo_risky"]);
    const called = JSON.parse(
      (await inspect("--method", "tools/call", "--tool-name", "demo_echo", "--tool-arg", "text=inspected"))
        .stdout,
    );
    expect(JSON.parse(textOf(called))).toEqual({ ok: true, data: { echoed: "inspected" } });
  });
});
