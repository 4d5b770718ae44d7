import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { pablo, useSandbox } from "./test-support/cli-harness.js";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const main = join(import.meta.dirname, "..", "dist", "main.js");
const SECRET = "sekret-everything-7f3a9c";

function deployment(extra = ""): string {
  return `[credentials.everything-token]
consumer = "mcp.environment"
sources = [{ kind = "environment", name = "PABLO_TEST_EVERYTHING_TOKEN" }]

[options.mcp.servers.everything]
transport = "stdio"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(everything)}, "stdio"]
env = { EVERYTHING_TOKEN = "everything-token" }
required = true
deferred = false
${extra}`;
}

describe("MCP servers in a deployment", () => {
  it("adds the server's tools, calls them through the pipeline, and keeps the credential out of every output", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write("deployment.toml", deployment());
    const env = { PABLO_TEST_EVERYTHING_TOKEN: SECRET };
    const tools = await pablo(["tools", "--json", "--explain", "--config", config], sandbox, env);
    expect(tools.code).toBe(0);
    const names = (JSON.parse(tools.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toContain("mcp/everything/echo");
    const echo = await pablo(
      [
        "call",
        "mcp/everything/echo",
        "--config",
        config,
        "--permission",
        "auto",
        "--json",
        "--args",
        '{"message":"hi there"}',
      ],
      sandbox,
      env,
    );
    expect(echo.code).toBe(0);
    expect(echo.stdout).toContain("hi there");
    const getEnv = await pablo(
      [
        "call",
        "mcp/everything/get-env",
        "--config",
        config,
        "--permission",
        "auto",
        "--json",
        "--args",
        "{}",
      ],
      sandbox,
      env,
    );
    expect(getEnv.stdout).toContain("EVERYTHING_TOKEN");
    const audit = readFileSync(join(sandbox.state, "pablo", "audit.jsonl"), "utf8");
    for (const output of [tools.stdout, tools.stderr, echo.stdout, getEnv.stdout, getEnv.stderr, audit]) {
      expect(output).not.toContain(SECRET);
    }
  });

  it("narrows the server's tools by [[options.mcp.policies]] and explains the exclusion", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write(
      "deployment.toml",
      deployment(`
[[options.mcp.policies]]
[options.mcp.policies.tools]
default = "deny"
allow = [{ id = "support.echo-only", value = "mcp/everything/echo" }]
`),
    );
    const { stdout } = await pablo(["tools", "--json", "--explain", "--config", config], sandbox, {
      PABLO_TEST_EVERYTHING_TOKEN: SECRET,
    });
    const parsed = JSON.parse(stdout) as {
      tools: Array<{ name: string }>;
      excluded: Array<{ name: string; rule: string }>;
    };
    expect(parsed.tools.filter((t) => t.name.startsWith("mcp/")).map((t) => t.name)).toEqual([
      "mcp/everything/echo",
    ]);
    expect(parsed.excluded.find((e) => e.name === "mcp/everything/get-env")?.rule).toBe("default");
  });

  it("refuses admission when a required server cannot start", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write(
      "deployment.toml",
      `[options.mcp.servers.broken]\ntransport = "stdio"\ncommand = "/nonexistent/server"\nrequired = true\nstartup_timeout_ms = 5000\n`,
    );
    const { code, stderr } = await pablo(["tools", "--config", config], sandbox);
    expect(code).toBe(2);
    expect(stderr).toContain("broken");
  });
});

describe("pablo mcp serve", () => {
  it("serves the governed catalog over stdio to the SDK's own client", async () => {
    const sandbox = useSandbox({ "notes.txt": "served over stdio\n" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [main, "mcp", "serve", "--workspace", sandbox.workspace],
      env: { PATH: process.env["PATH"] ?? "", XDG_STATE_HOME: sandbox.state, HOME: sandbox.state },
      stderr: "pipe",
    });
    const client = new Client({ name: "cli-test", version: "1.0.0" });
    await client.connect(transport);
    onTestFinished(() => client.close());
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("fs_read");
    expect(names).not.toContain("fs_write");
    const result = await client.callTool({ name: "fs_read", arguments: { path: "notes.txt" } });
    expect(JSON.stringify(result.content)).toContain("served over stdio");
    const denied = await client.callTool({ name: "shell_run", arguments: { command: "touch x" } });
    expect(denied.isError).toBe(true);
  });

  it("serves over Streamable HTTP on 127.0.0.1", async () => {
    const sandbox = useSandbox({ "notes.txt": "served over http\n" });
    const child = spawn(
      process.execPath,
      [main, "mcp", "serve", "--http", "0", "--workspace", sandbox.workspace],
      {
        env: { PATH: process.env["PATH"] ?? "", XDG_STATE_HOME: sandbox.state, HOME: sandbox.state },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    onTestFinished(() => {
      child.kill("SIGTERM");
    });
    const url = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stderr.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        const match = /serving the governed catalog at (\S+)/.exec(text);
        if (match?.[1]) resolve(match[1]);
      });
      child.on("exit", () => reject(new Error(`pablo mcp serve exited: ${text}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: "cli-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    onTestFinished(() => client.close());
    const result = await client.callTool({ name: "fs_read", arguments: { path: "notes.txt" } });
    expect(JSON.stringify(result.content)).toContain("served over http");
  });
});
