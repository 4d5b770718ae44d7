import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgent } from "../loop/agent.js";
import { answeringBroker, harness } from "../test-support/harness.js";
import { modelFor } from "../test-support/providers.js";
import { anthropicToolResults, firstUserText, toolNames } from "../test-support/requests.js";
import { routed } from "../test-support/routes.js";
import { useWorkspace } from "../test-support/workspace.js";
import { delegateAuthority, resolveSubagents } from "./subagents.js";

describe("Task delegates", () => {
  it("are refused a tool their definition lacks, with the delegate's own layer and rule", async () => {
    const workspace = useWorkspace();
    writeFileSync(join(workspace, "notes.txt"), "hello from notes\n");
    const h = await harness({
      workspace,
      subagents: [{ name: "reader", description: "Reads files and reports", tools: ["Read", "Frobnicate"] }],
    });
    expect(h.provider.diagnostics).toEqual([
      {
        subagent: "reader",
        code: "SUBAGENT_TOOL_DROPPED",
        tool: "Frobnicate",
        message: expect.stringContaining('"Frobnicate" cannot be given'),
      },
    ]);
    const server = await routed("anthropic", {
      ROOT: [
        {
          toolCalls: [
            {
              id: "t1",
              name: "Task",
              input: { subagent: "reader", prompt: "DELEGATE: read notes.txt, then save a copy" },
            },
          ],
        },
        { text: "The delegate read the notes." },
      ],
      DELEGATE: [
        {
          toolCalls: [
            { id: "d1", name: "fs_read", input: { path: "notes.txt" } },
            { id: "d2", name: "fs_write", input: { path: "copy.txt", content: "x" } },
          ],
        },
        { text: "The notes say hello." },
      ],
    });
    const model = modelFor("anthropic", server);
    const result = await runAgent({
      session: h.session,
      model,
      kernel: h.kernel,
      control: h.provider,
      prompt: "ROOT: summarize the notes",
    });
    expect(result.status).toBe("completed");
    const delegateRequest = server.requests.find((r) => firstUserText(r).startsWith("DELEGATE"));
    expect(toolNames(delegateRequest)).toEqual(["fs_read"]);
    const denied = h.audit.records.find((r) => r.callId === "d2");
    expect(denied).toMatchObject({
      decision: "deny",
      layer: "task.reader",
      rule: "default",
      requester: "task:reader",
      errorCode: "TOOL_DENIED",
    });
    expect(h.audit.records.find((r) => r.callId === "d1")).toMatchObject({
      decision: "allow",
      requester: "task:reader",
    });
    expect(existsSync(join(workspace, "copy.txt"))).toBe(false);
    const taskResult = JSON.parse(anthropicToolResults(server.requests.at(-1)).get("t1")?.content ?? "{}");
    expect(taskResult).toMatchObject({
      ok: true,
      data: {
        subagent: "reader",
        status: "completed",
        answer: "The notes say hello.",
        denials: [{ tool: "fs.write", code: "TOOL_DENIED", rule: "task.reader/default" }],
      },
    });
    expect(result.denials).toContainEqual(
      expect.objectContaining({ agent: "task:reader", tool: "fs.write", layer: "task.reader" }),
    );
  });

  it("ask permission in their own name, and never exceed the session's rights", async () => {
    const workspace = useWorkspace();
    const { broker, requests } = answeringBroker("allow-once");
    const h = await harness({
      workspace,
      permission: { mode: "ask" },
      broker,
      subagents: [{ name: "writer", description: "Writes files", tools: ["Write", "Read"] }],
    });
    const server = await routed("anthropic", {
      ROOT: [
        {
          toolCalls: [
            { id: "t1", name: "Task", input: { subagent: "writer", prompt: "DELEGATE: write out.txt" } },
          ],
        },
        { text: "done" },
      ],
      DELEGATE: [
        { toolCalls: [{ id: "w1", name: "fs_write", input: { path: "out.txt", content: "written" } }] },
        { text: "Wrote it." },
      ],
    });
    await runAgent({
      session: h.session,
      model: modelFor("anthropic", server),
      kernel: h.kernel,
      control: h.provider,
      prompt: "ROOT: go",
    });
    expect(requests).toEqual([expect.objectContaining({ tool: "fs.write", requester: "task:writer" })]);
    expect(existsSync(join(workspace, "out.txt"))).toBe(true);
  });

  it("print their effective authority: definition intersected with the session", async () => {
    const h = await harness({ workspace: useWorkspace(), subagents: [{ name: "reader", description: "r" }] });
    const [reader] = resolveSubagents([{ name: "reader", description: "r" }]).items;
    if (!reader) throw new Error("no reader");
    expect(reader.grants).toEqual(["Read", "Glob", "Grep"]);
    const visibility = delegateAuthority(h.kernel, h.session, reader);
    const byName = new Map(visibility.map((v) => [v.entry.name, v]));
    expect(byName.get("fs.read")?.visible).toBe(true);
    expect(byName.get("fs.glob")?.visible).toBe(true);
    expect(byName.get("fs.write")).toMatchObject({
      visible: false,
      decision: { layer: "task.reader", rule: "default" },
    });
    expect(byName.get("agent.task")).toMatchObject({ visible: false, decision: { layer: "task.reader" } });
    expect(byName.get("tool-search")?.visible).toBe(false);
  });

  it("never receive plugin tools, ToolSearch, new_context, the mode tools or Task", () => {
    const { items, diagnostics } = resolveSubagents([
      { name: "greedy", description: "wants everything", tools: "*" },
      {
        name: "sneaky",
        description: "names forbidden tools",
        tools: ["Task", "ToolSearch", "new_context", "EnterPlanMode", "plugin_acme_lint", "Skill"],
      },
    ]);
    expect(items[0]?.tools).toEqual([
      "fs.read",
      "fs.list",
      "fs.glob",
      "fs.search",
      "browser.preview",
      "shell.run",
      "fs.edit",
      "fs.write",
    ]);
    expect(items[1]?.grants).toEqual(["Read", "Glob", "Grep"]);
    expect(diagnostics).toHaveLength(6);
  });

  it("are offered only in Agent mode and only with definitions", async () => {
    const withDefs = await harness({
      workspace: useWorkspace(),
      subagents: [{ name: "reader", description: "r" }],
    });
    const without = await harness({ workspace: useWorkspace() });
    const server = await routed("anthropic", { ROOT: [{ text: "a" }, { text: "b" }] });
    const model = modelFor("anthropic", server);
    await runAgent({
      session: withDefs.session,
      model,
      kernel: withDefs.kernel,
      control: withDefs.provider,
      prompt: "ROOT",
    });
    await runAgent({
      session: without.session,
      model,
      kernel: without.kernel,
      control: without.provider,
      prompt: "ROOT",
    });
    expect(toolNames(server.requests[0])).toContain("Task");
    expect(toolNames(server.requests[1])).not.toContain("Task");
    withDefs.session.setMode("plan");
    expect(withDefs.session.visibleTools().map((e) => e.providerName)).not.toContain("Task");
  });
});
