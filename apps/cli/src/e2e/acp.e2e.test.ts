import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest, ScriptedTurn } from "@pablo/agent/testing";
import { describe, expect, it } from "vitest";
import { choose, startAcp, updateKinds } from "./acp-harness.js";
import { freshHome, type Home, loopbackModel, personEnv, toolResultIn } from "./harness.js";

/** A deployment that asks before every edit and command, with writes on. */
function deployment(home: Home, extra: string[] = []): string {
  return home.write(
    "pablo/deployment.toml",
    ["[options.permission]", 'mode = "ask"', ...extra, "[options.fs]", 'revisions = "explicit"', ""].join(
      "\n",
    ),
  );
}

/** The revision fs.read returned for call `id`, read from the request that carries its result. */
const revisionOf = (request: RecordedRequest, id: string) =>
  (toolResultIn(request, id)["data"] as { revision: string }).revision;

const editAfterRead =
  (path: string, from: string, to: string, id = "e1") =>
  (request: RecordedRequest): ScriptedTurn => ({
    toolCalls: [
      {
        id,
        name: "fs_edit",
        input: { path, old_string: from, new_string: to, expected_revision: revisionOf(request, "r1") },
      },
    ],
  });

describe("pablo acp over stdio, driven by the SDK's client", () => {
  it("reads and edits with the permission the editor grants, streaming calls and the kernel's diff", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.txt": "hello world\n" });
    const model = await loopbackModel([
      { text: "Reading first.", toolCalls: [{ id: "r1", name: "fs_read", input: { path: "notes.txt" } }] },
      editAfterRead("notes.txt", "world", "editor"),
      { text: "Done." },
    ]);
    const acp = await startAcp({
      args: ["--config", deployment(home), "--allow-write", "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
      permission: choose("allow_once"),
    });
    const session = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    expect(session.modes?.currentModeId).toBe("agent");
    const response = await acp.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "Change world to editor in notes.txt" }],
    });

    expect(response.stopReason).toBe("end_turn");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("hello editor\n");
    expect(acp.cards).toHaveLength(1);
    expect(acp.cards[0]?.toolCall).toMatchObject({
      toolCallId: "e1",
      kind: "edit",
      title: "fs_edit notes.txt",
    });
    expect(acp.cards[0]?.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    const updates = acp.updates.map((u) => u.update);
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: "tool_call",
        toolCallId: "r1",
        kind: "read",
        status: "pending",
        locations: [{ path: join(workspace, "notes.txt") }],
      }),
    );
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: "tool_call_update",
        toolCallId: "e1",
        status: "completed",
        content: [
          {
            type: "diff",
            path: join(workspace, "notes.txt"),
            oldText: "hello world\n",
            newText: "hello editor\n",
          },
        ],
      }),
    );
    const text = updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""))
      .join("");
    expect(text).toBe("Reading first.Done.");
    expect(updateKinds(acp, session.sessionId)).toEqual([
      "agent_message_chunk",
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
  });

  it("rejects: the edit is not made and the model reads a permission denial", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.txt": "hello world\n" });
    const model = await loopbackModel([
      { toolCalls: [{ id: "r1", name: "fs_read", input: { path: "notes.txt" } }] },
      editAfterRead("notes.txt", "world", "editor"),
      { text: "Left it." },
    ]);
    const acp = await startAcp({
      args: ["--config", deployment(home), "--allow-write", "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
      permission: choose("reject_once"),
    });
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const response = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Change it" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("hello world\n");
    expect(toolResultIn(model.server.requests[2], "e1")).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED" },
    });
    expect(acp.updates.map((u) => u.update)).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call_update", toolCallId: "e1", status: "failed" }),
    );
  });

  it("remembers allow-always for that session only: a second session asks again", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "a.txt": "a\n", "b.txt": "b\n" });
    const write = (id: string, path: string) => ({
      id,
      name: "fs_write",
      input: { path, content: `${id}\n`, expected_revision: null },
    });
    const model = await loopbackModel([
      { toolCalls: [write("w1", "new1.txt")] },
      { toolCalls: [write("w2", "new2.txt")] },
      { text: "Both." },
      { toolCalls: [write("w3", "new3.txt")] },
      { text: "Third." },
    ]);
    const acp = await startAcp({
      args: ["--config", deployment(home), "--allow-write", "--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home, model.env),
      permission: choose("allow_always"),
    });
    const first = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    await acp.agent.request("session/prompt", {
      sessionId: first.sessionId,
      prompt: [{ type: "text", text: "two" }],
    });
    expect(acp.cards.map((c) => c.toolCall.toolCallId)).toEqual(["w1"]);
    const second = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    await acp.agent.request("session/prompt", {
      sessionId: second.sessionId,
      prompt: [{ type: "text", text: "one" }],
    });
    expect(acp.cards.map((c) => [c.sessionId, c.toolCall.toolCallId])).toEqual([
      [first.sessionId, "w1"],
      [second.sessionId, "w3"],
    ]);
    expect(readFileSync(join(workspace, "new2.txt"), "utf8")).toBe("w2\n");
    expect(readFileSync(join(workspace, "new3.txt"), "utf8")).toBe("w3\n");
  });

  it("denies a card nobody answers within [options.permission] timeout_ms, and cancels it at the editor", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([
      {
        toolCalls: [
          { id: "w1", name: "fs_write", input: { path: "late.txt", content: "x", expected_revision: null } },
        ],
      },
      { text: "Not allowed." },
    ]);
    const acp = await startAcp({
      args: [
        "--config",
        deployment(home, ["timeout_ms = 400"]),
        "--allow-write",
        "--model",
        "anthropic:claude-e2e",
      ],
      cwd: workspace,
      env: personEnv(home, model.env),
    });
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const started = Date.now();
    const response = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "w" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(acp.cards).toHaveLength(1);
    expect(toolResultIn(model.server.requests[1], "w1")).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED" },
    });
    expect(home.audit()).toMatchObject([{ tool: "fs.write", prompted: true, decision: "deny" }]);
  });

  it("refuses a cwd that is relative or not an existing directory, with a clear error", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    writeFileSync(join(workspace, "file.txt"), "");
    const acp = await startAcp({
      args: ["--model", "anthropic:claude-e2e"],
      cwd: workspace,
      env: personEnv(home),
    });
    await expect(acp.agent.request("session/new", { cwd: "project", mcpServers: [] })).rejects.toThrow(
      /cwd must be an absolute path/,
    );
    await expect(
      acp.agent.request("session/new", { cwd: join(workspace, "file.txt"), mcpServers: [] }),
    ).rejects.toThrow(/is not an existing directory/);
  });

  it("keeps a pinned --workspace: a cwd outside it is refused, one inside it is the session's workspace", async () => {
    const home = freshHome();
    const workspace = home.dir("project/app");
    const other = home.dir("elsewhere");
    const model = await loopbackModel([]);
    const acp = await startAcp({
      args: ["--workspace", join(home.home, "project"), "--model", "anthropic:claude-e2e"],
      cwd: home.home,
      env: personEnv(home, model.env),
    });
    await expect(acp.agent.request("session/new", { cwd: other, mcpServers: [] })).rejects.toThrow(
      /outside the deployment's workspace/,
    );
    const inside = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    expect(inside.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
