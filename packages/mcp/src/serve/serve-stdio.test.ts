import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { readAuditFile } from "@pablo/kernel/node";
import { describe, expect, it, onTestFinished } from "vitest";
import { isRunning } from "../test-support/servers.js";

const LAUNCHER = fileURLToPath(new URL("../test-support/fixtures/serve-launcher.mjs", import.meta.url));
const INSPECTOR = createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/build/cli.js");
const textOf = (result: object): string =>
  (("content" in result ? (result.content as Array<{ text?: string }>) : []) ?? [])
    .map((b) => b.text ?? "")
    .join("");

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "pablo-mcp-serve-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("serveCatalog over stdio, as `pablo mcp serve` runs it", () => {
  it("serves the governed catalog to the SDK's own client, MCP servers behind it included", async () => {
    const audit = join(tempDir(), "audit.jsonl");
    const client = new Client(
      { name: "sdk-test", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { decision: "allow-session" } };
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [LAUNCHER],
      env: { AUDIT_PATH: audit },
      stderr: "pipe",
    });
    await client.connect(transport);
    const serverPid = transport.pid ?? 0;

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["demo_echo", "demo_progress", "demo_risky", "mcp_everything_echo"]),
    );
    expect(names).not.toContain("demo_secret");

    const echo = await client.callTool({ name: "demo_echo", arguments: { text: "over stdio" } });
    expect(JSON.parse(textOf(echo))).toEqual({ ok: true, data: { echoed: "over stdio" } });

    // A medium-risk MCP tool in `ask` mode: the prompt reaches this client as an elicitation.
    const proxied = await client.callTool({
      name: "mcp_everything_echo",
      arguments: { message: "through two hops" },
    });
    expect(JSON.parse(textOf(proxied))).toEqual({ ok: true, data: { text: ["Echo: through two hops"] } });
    expect(asked).toHaveLength(1);
    await client.callTool({ name: "mcp_everything_echo", arguments: { message: "again" } });
    expect(asked).toHaveLength(1);

    const denied = await client.callTool({ name: "demo_secret", arguments: {} });
    expect(JSON.parse(textOf(denied))).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });

    await client.close();
    const { records } = readAuditFile(audit);
    expect(records.map((r) => [r.tool, r.decision, r.permissionAnswer ?? null])).toEqual([
      ["demo.echo", "allow", null],
      ["mcp/everything/echo", "allow", "allow-session"],
      ["mcp/everything/echo", "allow", null],
      ["demo.secret", "deny", null],
    ]);
    await expect.poll(() => isRunning(serverPid), { timeout: 10_000 }).toBe(false);
  });

  it("works with the MCP Inspector CLI", () => {
    const run = spawnSync(
      process.execPath,
      [
        INSPECTOR,
        "--cli",
        process.execPath,
        LAUNCHER,
        "--method",
        "tools/call",
        "--tool-name",
        "demo_echo",
        "--tool-arg",
        "text=inspected",
      ],
      // The inspector looks for `../package.json` relative to its working directory before importing
      // its own package.json; this package's source folder satisfies that check.
      { cwd: fileURLToPath(new URL("..", import.meta.url)), encoding: "utf8", timeout: 60_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(JSON.parse(textOf(result))).toEqual({ ok: true, data: { echoed: "inspected" } });
  });
});
