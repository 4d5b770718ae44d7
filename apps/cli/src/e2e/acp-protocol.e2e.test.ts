import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startAcp, useBinary } from "./acp-harness.js";
import { freshHome, loopbackModel, offeredTools, personEnv } from "./harness.js";

/** Sends raw lines to `pablo acp`, closes stdin, and returns everything it wrote. */
function exchange(
  lines: readonly string[],
  options: { cwd: string; env: Record<string, string>; args?: string[] },
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...useBinary(), ...(options.args ?? [])], {
      cwd: options.cwd,
      env: options.env,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    for (const line of lines) child.stdin.write(`${line}\n`);
    setTimeout(() => child.stdin.end(), 1500);
  });
}

describe("pablo acp on the wire", () => {
  it("writes only JSON-RPC lines to stdout and advertises only what it supports", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const out = await exchange(
      [
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }),
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "session/load",
          params: { sessionId: "x", cwd: workspace, mcpServers: [] },
        }),
        "this is not json",
      ],
      { cwd: workspace, env: personEnv(home), args: ["--model", "anthropic:claude-e2e"] },
    );
    expect(out.code).toBe(0);
    const messages = out.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(messages.every((m) => m["jsonrpc"] === "2.0")).toBe(true);
    const byId = (id: number | null) => messages.find((m) => m["id"] === id);
    // A line that is not JSON is answered on the wire too, never echoed or logged to stdout.
    expect(byId(null)).toMatchObject({ error: { code: -32700 } });
    expect(byId(1)).toMatchInlineSnapshot(`
      {
        "id": 1,
        "jsonrpc": "2.0",
        "result": {
          "agentCapabilities": {
            "loadSession": false,
            "mcpCapabilities": {
              "http": true,
              "sse": false,
            },
            "promptCapabilities": {
              "audio": false,
              "embeddedContext": false,
              "image": false,
            },
            "sessionCapabilities": {
              "close": {},
            },
          },
          "agentInfo": {
            "name": "pablo",
            "title": "Pablo",
            "version": "0.1.0",
          },
          "authMethods": [],
          "protocolVersion": 1,
        },
      }
    `);
    expect(byId(2)).toMatchObject({ error: { code: -32601 } });
  });

  it("refuses a broken deployment with exit 2 before speaking", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const config = home.write("pablo/deployment.toml", "[options.permission]\nmode = 'sometimes'\n");
    const out = await exchange([], { cwd: workspace, env: personEnv(home), args: ["--config", config] });
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(/options\.permission/);
  });

  it("answers session/new with an error when no model is configured", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const acp = await startAcp({ args: [], cwd: workspace, env: personEnv(home) });
    await expect(acp.agent.request("session/new", { cwd: workspace, mcpServers: [] })).rejects.toThrow(
      /pablo acp needs a model/,
    );
  });

  it("does not offer asktool (no question channel) and reports token usage in the response", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([{ text: "Hi." }]);
    const acp = await startAcp({
      args: ["--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
    });
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const response = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(offeredTools(model.server.requests[0])).toContain("fs_read");
    expect(offeredTools(model.server.requests[0])).not.toContain("asktool");
    expect(response._meta).toMatchObject({
      pablo: { status: "completed", usage: { inputTokens: 42, outputTokens: 17 } },
    });
  });
});
