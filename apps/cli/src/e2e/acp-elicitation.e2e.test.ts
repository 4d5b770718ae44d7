import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ClientCapabilities, CreateElicitationResponse } from "@agentclientprotocol/sdk";
import type { RecordedRequest } from "@pablo/agent/testing";
import { describe, expect, it } from "vitest";
import { type AcpProcess, startAcp } from "./acp-harness.js";
import { freshHome, type Home, loopbackModel, personEnv, toolResultIn } from "./harness.js";

const SERVER = fileURLToPath(new URL("./fixtures/eliciting-mcp-server.mjs", import.meta.url));

/** A deployment with the eliciting server; its tools run without a card, so only questions are asked. */
function deployment(home: Home): string {
  return home.write(
    "pablo/deployment.toml",
    [
      "[options.permission]",
      'mode = "auto"',
      "[options.mcp.servers.releases]",
      'transport = "stdio"',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(SERVER)}]`,
      'cwd = "/"',
      "required = true",
      "deferred = false",
      "",
    ].join("\n"),
  );
}

/** The text the MCP tool returned to the model for call `id`. */
function toolText(request: RecordedRequest | undefined, id: string): string {
  const result = toolResultIn(request, id) as { ok: boolean; data?: { text?: string[] } };
  expect(result.ok).toBe(true);
  return (result.data?.text ?? []).join("");
}

/**
 * `pablo acp` with the deployment's eliciting MCP server, an editor with the given capabilities
 * and answer, and a model that calls the server's tool once: the prompt's response, the editor's
 * record, the model's requests and the raw audit file.
 */
async function askThroughEditor(options: {
  capabilities: ClientCapabilities;
  elicit?: (signal: AbortSignal) => Promise<CreateElicitationResponse>;
}): Promise<{ acp: AcpProcess; sessionId: string; stopReason: string; result: string; audit: string }> {
  const home = freshHome();
  const workspace = home.dir("project");
  const model = await loopbackModel([
    { toolCalls: [{ id: "q1", name: "mcp_releases_ask", input: {} }] },
    { text: "Answered." },
  ]);
  const { elicit } = options;
  const acp = await startAcp({
    args: ["--config", deployment(home), "--model", "anthropic:claude-e2e"],
    cwd: workspace,
    env: personEnv(home, model.env),
    capabilities: options.capabilities,
    ...(elicit ? { elicit: (_request, signal) => elicit(signal) } : {}),
  });
  const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
  const response = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "Ask who requests the release." }],
  });
  const result = toolText(model.server.requests[1], "q1");
  return {
    acp,
    sessionId,
    stopReason: response.stopReason,
    result,
    audit: readFileSync(join(home.state, "audit.jsonl"), "utf8"),
  };
}

const FORM: ClientCapabilities = { elicitation: { form: {} } };

describe("pablo acp forwards MCP elicitation to an editor that advertises it", () => {
  it("asks the editor with the server's schema and defaults; the answer, with defaults applied, reaches the server and never the audit", async () => {
    const typed = `Grace-${randomBytes(6).toString("hex")}`;
    const run = await askThroughEditor({
      capabilities: FORM,
      elicit: async () => ({ action: "accept", content: { name: typed, count: 4 } }),
    });
    expect(run.stopReason).toBe("end_turn");
    expect(run.acp.questions).toEqual([
      {
        mode: "form",
        sessionId: run.sessionId,
        toolCallId: "q1",
        message: "Who requests the release?",
        requestedSchema: {
          type: "object",
          title: "Question from releases",
          properties: {
            name: {
              type: "string",
              title: "Name",
              description: "Who is asking for the release",
              maxLength: 80,
            },
            count: { type: "integer", title: "Copies", minimum: 1, maximum: 5, default: 2 },
            confirm: { type: "boolean", title: "Confirm", default: true },
            channel: {
              type: "string",
              title: "Channel",
              oneOf: [
                { const: "stable", title: "Stable" },
                { const: "beta", title: "Beta" },
              ],
              default: "stable",
            },
          },
          required: ["name"],
        },
        _meta: { pablo: { server: "releases", deadline: expect.any(Number) } },
      },
    ]);
    // The server saw the editor's values plus the defaults of the fields the editor left out.
    expect(JSON.parse(run.result.slice("answer: ".length))).toEqual({
      action: "accept",
      content: { name: typed, count: 4, confirm: true, channel: "stable" },
    });
    expect(run.audit).toContain("mcp/releases/ask");
    expect(run.audit).not.toContain(typed);
  });

  it("passes the editor's decline to the server as a decline", async () => {
    const run = await askThroughEditor({ capabilities: FORM, elicit: async () => ({ action: "decline" }) });
    expect(run.acp.questions).toHaveLength(1);
    expect(run.result).toBe('answer: {"action":"decline"}');
  });

  it("withdraws the open question when the editor cancels the prompt", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([{ toolCalls: [{ id: "q1", name: "mcp_releases_ask", input: {} }] }]);
    const acp = await startAcp({
      args: ["--config", deployment(home), "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
      capabilities: FORM,
      elicit: (_request, signal) =>
        new Promise((resolve) =>
          signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true }),
        ),
    });
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const prompted = acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "ask" }],
    });
    await until(() => acp.questions.length === 1);
    await acp.agent.notify("session/cancel", { sessionId });
    expect((await prompted).stopReason).toBe("cancelled");
    await until(() => acp.withdrawnQuestions.length === 1);
  });

  it("offers MCP servers no elicitation when the editor does not advertise it", async () => {
    // The editor would answer, but did not say so at initialize.
    const run = await askThroughEditor({
      capabilities: {},
      elicit: async () => ({ action: "accept", content: { name: "unasked" } }),
    });
    expect(run.stopReason).toBe("end_turn");
    expect(run.result).toBe("no elicitation capability");
    expect(run.acp.questions).toEqual([]);
  });
});

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
