import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { choose, startAcp } from "./acp-harness.js";
import { freshHome, type Home, loopbackModel, personEnv, toolResultIn } from "./harness.js";

function deployment(home: Home, permission: string[] = ['mode = "ask"']): string {
  return home.write("pablo/deployment.toml", ["[options.permission]", ...permission, ""].join("\n"));
}

const write = (id: string, path: string) => ({
  id,
  name: "fs_write",
  input: { path, content: "x\n", expected_revision: null },
});

describe("operating modes are ACP session modes; permission modes a session config option", () => {
  it("session/set_mode plan makes the kernel refuse writes before any card, and agent lifts it", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([
      { toolCalls: [write("w1", "plan.txt")] },
      { text: "Cannot in Plan mode." },
      { toolCalls: [write("w2", "agent.txt")] },
      { text: "Written." },
    ]);
    const acp = await startAcp({
      args: ["--config", deployment(home), "--allow-write", "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
      permission: choose("allow_once"),
    });
    const session = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(["agent", "plan", "goal"]);
    await acp.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "plan" });
    await acp.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "a" }],
    });
    expect(acp.cards).toEqual([]);
    expect(toolResultIn(model.server.requests[1], "w1")).toMatchObject({
      ok: false,
      error: { code: "DISABLED_IN_MODE", details: { rule: "mode.plan.write" } },
    });
    expect(existsSync(join(workspace, "plan.txt"))).toBe(false);

    await acp.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "agent" });
    await acp.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "b" }],
    });
    expect(acp.cards.map((c) => c.toolCall.toolCallId)).toEqual(["w2"]);
    expect(existsSync(join(workspace, "agent.txt"))).toBe(true);
    await expect(
      acp.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "yolo" }),
    ).rejects.toThrow(/unknown mode yolo/);
  });

  it("EnterPlanMode and an approved SubmitPlan stream mode changes and the plan", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const markdown = "# Plan\n\n- read the notes\n- write the summary\n";
    const model = await loopbackModel([
      { toolCalls: [{ id: "p1", name: "EnterPlanMode", input: {} }] },
      { toolCalls: [{ id: "p2", name: "SubmitPlan", input: { markdown } }] },
      { text: "Approved; starting." },
    ]);
    const acp = await startAcp({
      args: ["--config", deployment(home), "--allow-write", "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
      permission: choose("allow_once"),
    });
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const response = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "p" }],
    });
    expect(response.stopReason).toBe("end_turn");
    const updates = acp.updates.map((u) => u.update);
    expect(updates.filter((u) => u.sessionUpdate === "current_mode_update")).toEqual([
      { sessionUpdate: "current_mode_update", currentModeId: "plan" },
      { sessionUpdate: "current_mode_update", currentModeId: "agent" },
    ]);
    expect(updates).toContainEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "read the notes", priority: "medium", status: "pending" },
        { content: "write the summary", priority: "medium", status: "pending" },
      ],
    });
    expect(acp.cards).toHaveLength(1);
    expect(acp.cards[0]?.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    expect(updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "p1", kind: "switch_mode" }),
    );
  });

  it("offers permission modes no looser than the deployment's loosest, and switches between them", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([{ toolCalls: [write("w1", "free.txt")] }, { text: "Done." }]);
    const acp = await startAcp({
      args: [
        "--config",
        deployment(home, ['mode = "ask"', 'loosest = "accept-edits"']),
        "--allow-write",
        "--model",
        "anthropic:claude-e2e",
      ],
      cwd: workspace,
      env: personEnv(home, model.env),
    });
    const session = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const option = session.configOptions?.[0];
    expect(option).toMatchObject({ id: "permission", type: "select", currentValue: "ask" });
    expect(
      option && "options" in option ? option.options.map((o) => ("value" in o ? o.value : "")) : [],
    ).toEqual(["read-only", "ask", "accept-edits"]);
    await expect(
      acp.agent.request("session/set_config_option", {
        sessionId: session.sessionId,
        configId: "permission",
        value: "auto",
      }),
    ).rejects.toThrow(/permission must be one of read-only, ask, accept-edits/);
    const changed = await acp.agent.request("session/set_config_option", {
      sessionId: session.sessionId,
      configId: "permission",
      value: "accept-edits",
    });
    expect(changed.configOptions[0]).toMatchObject({ currentValue: "accept-edits" });
    await acp.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "w" }],
    });
    expect(acp.cards).toEqual([]);
    expect(existsSync(join(workspace, "free.txt"))).toBe(true);
  });
});
