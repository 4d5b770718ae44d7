import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { choose, startAcp } from "./acp-harness.js";
import { expectNoStackTrace, freshHome, type Home, personEnv, runPablo, toolResultIn } from "./harness.js";
import { routedModel } from "./routed-model.js";

/** A deployment with supervised children that may use `tools`. */
function deployment(home: Home, permission: string, tools: string): string {
  return home.write(
    "pablo/deployment.toml",
    [
      "[options.permission]",
      permission,
      "[options.agent.children]",
      "enabled = true",
      `tools = ${tools}`,
      "",
    ].join("\n"),
  );
}

const delegate = (task: string) => [
  { toolCalls: [{ id: "s1", name: "child_start", input: { task } }] },
  { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 30_000 } }] },
];

describe("supervised children in the built binary, through the ACP handlers", () => {
  it("pablo run delegates to a child whose calls, answer and handoff come back to the root", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.txt": "line one\n" });
    const model = await routedModel({
      ROOT: [
        ...delegate("CHILD read notes.txt"),
        { toolCalls: [{ id: "h1", name: "child_handoff", input: { child: "c1", artifact: "notes.txt" } }] },
        { text: "The child read the notes." },
      ],
      "CHILD read": [
        { toolCalls: [{ id: "r1", name: "fs_read", input: { path: "notes.txt" } }] },
        { text: "CHILD-ANSWER: one line." },
      ],
    });
    const run = await runPablo(
      [
        "run",
        "ROOT: delegate reading the notes",
        "--config",
        deployment(home, 'mode = "auto"', '["Read"]'),
        "--model",
        "anthropic:claude-e2e",
        "--json",
      ],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The child's own call, reported under its name: it reached the root over the child's ACP connection.
    expect(lines).toContainEqual(
      expect.objectContaining({
        type: "tool.result",
        agent: "child:c1",
        callId: "r1",
        tool: "fs.read",
        ok: true,
      }),
    );
    expect(lines.filter((l) => l["type"] === "child.state").map((l) => l["state"])).toEqual([
      "running",
      "completed",
    ]);
    const last = model.server.requests.at(-1);
    expect(toolResultIn(last, "h1")).toMatchObject({
      ok: true,
      data: {
        child: "c1",
        answer: "CHILD-ANSWER: one line.",
        artifact: { path: "notes.txt", content: "line one\n" },
      },
    });
    // Audited as the child's calls: its read and the handoff's re-check under its authority.
    expect(
      home
        .audit()
        .filter((r) => r["tool"] === "fs.read")
        .map((r) => r["requester"]),
    ).toEqual(["child:c1", "child:c1"]);
  });

  it("pablo acp shows a child's permission card on the editor's session, and the editor's answer holds", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await routedModel({
      ROOT: [...delegate("CHILD write"), { text: "done" }],
      "CHILD write": [
        {
          toolCalls: [
            {
              id: "x1",
              name: "fs_write",
              input: { path: "new.txt", content: "hi\n", expected_revision: null },
            },
          ],
        },
        { text: "written" },
      ],
    });
    const acp = await startAcp({
      args: [
        "--config",
        deployment(home, 'mode = "ask"', '["Read", "Write"]'),
        "--allow-write",
        "--model",
        "anthropic:claude-e2e",
      ],
      cwd: workspace,
      env: personEnv(home, model.env),
      permission: choose("allow_once"),
    });
    const session = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const response = await acp.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "ROOT: have a child write new.txt" }],
    });
    expect(response.stopReason).toBe("end_turn");
    // One card, on the editor's own session, about the child's call with its arguments.
    expect(acp.cards.map((c) => [c.sessionId, c.toolCall.toolCallId])).toEqual([[session.sessionId, "x1"]]);
    expect(acp.cards[0]?.toolCall).toMatchObject({ kind: "edit", rawInput: { path: "new.txt" } });
    expect(readFileSync(join(workspace, "new.txt"), "utf8")).toBe("hi\n");
    // The editor saw the child's call as it ran, on the same session.
    const child = acp.updates.filter(
      (n) => n.sessionId === session.sessionId && "toolCallId" in n.update && n.update.toolCallId === "x1",
    );
    expect(child.map((n) => n.update.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
    expect(home.audit().find((r) => r["callId"] === "x1")).toMatchObject({
      requester: "child:c1",
      prompted: true,
      permissionAnswer: "allow-once",
    });
    expect(existsSync(join(workspace, "new.txt"))).toBe(true);
  });

  it("pablo acp: cancelling the editor's prompt ends the child's turn too", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    let childAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      childAsked = resolve;
    });
    const model = await routedModel({
      ROOT: delegate("CHILD slow"),
      "CHILD slow": [
        () => {
          childAsked();
          return new Promise(() => undefined);
        },
      ],
    });
    const acp = await startAcp({
      args: ["--config", deployment(home, 'mode = "auto"', '["Read"]'), "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
    });
    const session = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const prompted = acp.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "ROOT: delegate something slow" }],
    });
    await asked;
    await acp.agent.notify("session/cancel", { sessionId: session.sessionId });
    const started = Date.now();
    expect((await prompted).stopReason).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
