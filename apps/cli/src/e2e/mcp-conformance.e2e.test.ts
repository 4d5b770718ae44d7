import { describe, expect, it } from "vitest";
import { expectNoStackTrace } from "./harness.js";
import { NON_AUTH_CLIENT_SCENARIOS, runClientScenario, SERVER } from "./mcp-conformance.js";

/**
 * Every client scenario of the MCP conformance suite 0.1.13 but the `auth/*` ones, with the built
 * `pablo` as the client: the suite's own test servers judge what `pablo tools` and `pablo call`
 * sent. Each scenario's server listens on `localhost`, as a user's local MCP server often does.
 */
describe("the MCP conformance suite's client scenarios pass with pablo as the client", () => {
  it("covers every non-auth client scenario of the suite", () => {
    expect([...NON_AUTH_CLIENT_SCENARIOS].sort()).toEqual(
      ["elicitation-sep1034-client-defaults", "initialize", "sse-retry", "tools_call"].sort(),
    );
  });

  it("initialize: the handshake carries the protocol version and the client's name and version", async () => {
    const run = await runClientScenario("initialize", async (client) => {
      client.deploy();
      const tools = await client.pablo(["tools", "--json"]);
      const names = (JSON.parse(tools.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
      expect(names.filter((n) => n.startsWith("mcp/"))).toEqual([]);
    });
    expect(run.client.error).toBeUndefined();
    expect(run.problems).toEqual([]);
    expect(run.checks.find((c) => c.id === "mcp-client-initialization")?.status).toBe("SUCCESS");
    expect(run.passed).toBe(true);
  });

  it("tools_call: the server's tool is listed and called once with the model's arguments", async () => {
    const run = await runClientScenario("tools_call", async (client) => {
      client.deploy();
      const tools = await client.pablo(["tools", "--json"]);
      expect(tools.stdout).toContain(`mcp/${SERVER}/add_numbers`);
      const call = await client.pablo([
        "call",
        `mcp/${SERVER}/add_numbers`,
        "--args",
        '{"a":5,"b":3}',
        "--json",
      ]);
      expect(JSON.parse(call.stdout)).toMatchObject({
        ok: true,
        data: { text: ["The sum of 5 and 3 is 8"] },
      });
    });
    expect(run.client.error).toBeUndefined();
    expect(run.problems).toEqual([]);
    expect(run.checks.filter((c) => c.id === "tool-add-numbers").map((c) => c.status)).toEqual(["SUCCESS"]);
    expect(run.passed).toBe(true);
  });

  it("sse-retry: a response stream the server closes is resumed after its retry delay with Last-Event-ID, never re-posted", async () => {
    const run = await runClientScenario("sse-retry", async (client) => {
      client.deploy();
      const call = await client.pablo(["call", `mcp/${SERVER}/test_reconnection`, "--args", "{}", "--json"]);
      expect(JSON.parse(call.stdout)).toMatchObject({
        ok: true,
        data: { text: ["Reconnection test completed successfully"] },
      });
      // The audit says the result came over a resumed stream; the model's result does not.
      const record = client.home.audit().find((r) => r["tool"] === `mcp/${SERVER}/test_reconnection`);
      expect(record?.["notes"]).toMatchObject({ resumedStreams: 1 });
      expect(call.stdout).not.toContain("resumed");
    });
    expect(run.client.error).toBeUndefined();
    expect(run.problems).toEqual([]);
    const posted = run.checks.filter(
      (c) => c.id === "incoming-request" && c.details?.["jsonrpcMethod"] === "tools/call",
    );
    expect(posted).toHaveLength(1);
    expect(run.checks.find((c) => c.id === "client-sse-last-event-id")?.status).toBe("SUCCESS");
    expect(run.passed).toBe(true);
  });

  // On a terminal the server's question is a question card; pressing a accepts the values shown,
  // which are the schema's defaults, and the suite checks each one arrived.
  it("elicitation-sep1034-client-defaults: the question card answers with the schema's defaults applied", async () => {
    const run = await runClientScenario("elicitation-sep1034-client-defaults", async (client) => {
      client.deploy();
      const terminal = client.terminal([
        "call",
        `mcp/${SERVER}/test_client_elicitation_defaults`,
        "--args",
        "{}",
        "--json",
      ]);
      const screen = await terminal.waitFor("[a] accept");
      expect(screen).toContain("Test client default value handling");
      expect(screen).toMatch(/name: John Doe/);
      expect(screen).toContain("verified: yes");
      terminal.press("a");
      expect(await terminal.exitCode()).toBe(0);
      const shown = terminal.screen();
      expectNoStackTrace(shown);
      expect(shown).toContain("Elicitation completed");
      // The values answered are content: they never reach the audit, only that it was accepted.
      expect(JSON.stringify(client.home.audit())).not.toContain("John Doe");
      expect(client.home.audit().at(-1)).toMatchObject({ notes: { elicitations: ["accept"] } });
    });
    expect(run.client.error).toBeUndefined();
    expect(run.problems).toEqual([]);
    expect(run.passed).toBe(true);
  });
});
