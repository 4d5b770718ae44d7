import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { choose, startAcp } from "./acp-harness.js";
import {
  freshHome,
  type Home,
  loopbackModel,
  offeredTools,
  personEnv,
  processesWith,
  systemOf,
  toolResultIn,
} from "./harness.js";

const EVERYTHING = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js",
);
/** A marker argument the server ignores, so this test finds its own process among other tests'. */
const MARKER = `acp-e2e-${process.pid}-${Date.now()}`;
const everything: McpServer = {
  name: "everything",
  command: process.execPath,
  args: [EVERYTHING, "stdio", MARKER],
  env: [],
};

function deployment(home: Home, lines: string[] = []): string {
  return home.write(
    "pablo/deployment.toml",
    ["[options.permission]", 'mode = "ask"', "[options.fs]", 'revisions = "explicit"', ...lines, ""].join(
      "\n",
    ),
  );
}

describe("client MCP servers attach only through the deployment's MCP policy", () => {
  it("refuses and reports a server no policy entry allows, and never starts it", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([]);
    const acp = await startAcp({
      args: ["--config", deployment(home), "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
    });
    const session = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [everything] });
    expect(session._meta).toMatchObject({
      pablo: {
        refusedMcpServers: [{ server: "everything", message: expect.stringMatching(/acp\.client-mcp/) }],
      },
    });
    expect(processesWith(MARKER)).toEqual([]);
    expect(acp.stderr()).toMatch(/MCP server everything not attached/);
  });

  it("attaches a server the policy allows by name: its tools reach the model, session/close ends its process", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([{ text: "I see them." }]);
    const config = deployment(home, [
      "[[options.mcp.policies]]",
      'id = "e2e.mcp"',
      'servers = { allow = [{ id = "e2e.everything", value = "everything" }] }',
    ]);
    const acp = await startAcp({
      args: ["--config", config, "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
    });
    const session = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [everything] });
    expect(session._meta).toMatchObject({ pablo: { refusedMcpServers: [] } });
    expect(processesWith(MARKER).length).toBeGreaterThan(0);
    await acp.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "x" }],
    });
    const request = model.server.requests[0];
    const offered = [...offeredTools(request), systemOf(request)].join("\n");
    expect(offered).toMatch(/mcp_everything_echo/);
    // session/close ends the session's servers; the connection stays for other sessions.
    await acp.agent.request("session/close", { sessionId: session.sessionId });
    expect(processesWith(MARKER)).toEqual([]);
    await expect(
      acp.agent.request("session/prompt", {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: "x" }],
      }),
    ).rejects.toThrow();
    acp.child.stdin.end();
    expect(await acp.exited).toBe(0);
  });
});

describe("the fs tools read and write through the editor when it offers fs/*_text_file", () => {
  it("reads the unsaved buffer and installs the edit with fs/write_text_file", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.txt": "saved text\n" });
    const path = join(workspace, "notes.txt");
    const model = await loopbackModel([
      { toolCalls: [{ id: "r1", name: "fs_read", input: { path: "notes.txt" } }] },
      (request) => {
        const data = toolResultIn(request, "r1")["data"] as { revision: string };
        return {
          toolCalls: [
            {
              id: "e1",
              name: "fs_edit",
              input: {
                path: "notes.txt",
                old_string: "unsaved",
                new_string: "edited",
                expected_revision: data.revision,
              },
            },
          ],
        };
      },
      { text: "Done." },
    ]);
    const acp = await startAcp({
      args: ["--config", deployment(home), "--allow-write", "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
      capabilities: { fs: { readTextFile: true, writeTextFile: true } },
      buffers: { [path]: "unsaved buffer\n" },
      permission: choose("allow_once"),
    });
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const response = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "e" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(JSON.stringify(toolResultIn(model.server.requests[1], "r1"))).toContain("unsaved buffer");
    expect(acp.reads).toContain(path);
    expect(acp.writes).toEqual([{ path, content: "edited buffer\n" }]);
    expect(readFileSync(path, "utf8")).toBe("edited buffer\n");
    expect(toolResultIn(model.server.requests[2], "e1")).toMatchObject({ ok: true });
  });

  it("keeps containment: a path outside the workspace is refused before the editor is asked", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    home.write("secret.txt", "outside\n");
    const model = await loopbackModel([
      { toolCalls: [{ id: "r1", name: "fs_read", input: { path: join(home.home, "secret.txt") } }] },
      { text: "Refused." },
    ]);
    const acp = await startAcp({
      args: ["--config", deployment(home), "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
      capabilities: { fs: { readTextFile: true, writeTextFile: true } },
      permission: choose("allow_once"),
    });
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "r" }] });
    expect(toolResultIn(model.server.requests[1], "r1")).toMatchObject({ ok: false });
    expect(acp.reads).toEqual([]);
  });
});
