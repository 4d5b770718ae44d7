import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { defineLayer } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { runAgent } from "../loop/agent.js";
import { answeringBroker, harness } from "../test-support/harness.js";
import { scripted } from "../test-support/providers.js";
import { anthropicSystem, anthropicToolResults, toolNames } from "../test-support/requests.js";
import { useWorkspace } from "../test-support/workspace.js";

const PLAN =
  "# Plan\r\n\r\n1. Read CHANGELOG.md  \n2. Add the 1.2 entry — «exact» bytes 🚀\n\n```sh\necho keep\ttabs\n```";

function resultOf(server: Awaited<ReturnType<typeof scripted>>["server"], index: number, callId: string) {
  const sent = anthropicToolResults(server.requests[index]).get(callId);
  return JSON.parse(sent?.content ?? "null") as {
    ok: boolean;
    data?: Record<string, unknown>;
    error?: { code: string };
  };
}

describe("SubmitPlan and SubmitGoal", () => {
  it("preserve the exact Markdown bytes in a new file and return to Agent mode once approved", async () => {
    const workspace = useWorkspace();
    const { broker, requests } = answeringBroker("allow-once");
    const h = await harness({ workspace, mode: "plan", permission: { mode: "ask" }, broker });
    const { server, model } = await scripted("anthropic", [
      { toolCalls: [{ id: "sub_1", name: "SubmitPlan", input: { markdown: PLAN } }] },
      { text: "Plan approved; starting." },
    ]);
    const result = await runAgent({
      session: h.session,
      model,
      prompt: "Plan the changelog update",
      control: h.provider,
      kernel: h.kernel,
      onEvent: h.onEvent,
    });
    expect(result.status).toBe("completed");
    const files = readdirSync(join(workspace, ".pablo", "plan"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^plan-\d{8}-\d{6}-[0-9a-f]{6}\.md$/);
    expect(readFileSync(join(workspace, ".pablo", "plan", files[0] as string))).toEqual(
      Buffer.from(PLAN, "utf8"),
    );
    const submitted = resultOf(server, 1, "sub_1");
    expect(submitted).toMatchObject({
      ok: true,
      data: { path: `.pablo/plan/${files[0]}`, approved: true, answer: "approved" },
    });
    expect(requests).toEqual([
      expect.objectContaining({
        tool: "agent.submit-plan",
        providerName: "SubmitPlan",
        category: "plan-submit",
      }),
    ]);
    expect(requests[0]?.argsPreview).toContain(`.pablo/plan/${files[0]}`);
    expect(h.session.mode).toBe("agent");
    expect(toolNames(server.requests[1])).toContain("fs_write");
    expect(result.artifacts).toEqual([
      expect.objectContaining({ kind: "plan", approved: true, bytes: Buffer.byteLength(PLAN) }),
    ]);
    expect(h.events).toContainEqual({ type: "mode.changed", agent: "root", from: "plan", to: "agent" });
  });

  it("keep the file but stay in the mode when the approval is denied, and the run ends not approved", async () => {
    const workspace = useWorkspace();
    const { broker } = answeringBroker("deny");
    const h = await harness({ workspace, mode: "goal", permission: { mode: "ask" }, broker });
    const { server, model } = await scripted("anthropic", [
      { toolCalls: [{ id: "g1", name: "SubmitGoal", input: { markdown: "# Goal\n" } }] },
      { text: "The goal was not approved." },
    ]);
    const result = await runAgent({
      session: h.session,
      model,
      prompt: "Agree a goal",
      control: h.provider,
      kernel: h.kernel,
    });
    expect(resultOf(server, 1, "g1")).toMatchObject({
      ok: true,
      data: { approved: false, answer: "rejected" },
    });
    expect(readdirSync(join(workspace, ".pablo", "goal"))).toHaveLength(1);
    expect(h.session.mode).toBe("goal");
    expect(result.status).toBe("not-approved");
  });

  it("fail closed without an approval channel", async () => {
    const workspace = useWorkspace();
    const h = await harness({ workspace, mode: "plan" });
    const { server, model } = await scripted("anthropic", [
      { toolCalls: [{ id: "p1", name: "SubmitPlan", input: { markdown: "# P\n" } }] },
      { text: "Stopping." },
    ]);
    await runAgent({ session: h.session, model, prompt: "Plan", control: h.provider, kernel: h.kernel });
    expect(resultOf(server, 1, "p1")).toMatchObject({
      ok: true,
      data: { approved: false, answer: "no-channel" },
    });
  });

  it("must be the only call of their response: nothing of such a batch runs", async () => {
    const workspace = useWorkspace();
    const h = await harness({ workspace, mode: "plan" });
    const { server, model } = await scripted("anthropic", [
      {
        toolCalls: [
          { id: "r1", name: "fs_read", input: { path: "a.txt" } },
          { id: "p1", name: "SubmitPlan", input: { markdown: "# P\n" } },
        ],
      },
      { text: "ok" },
    ]);
    await runAgent({ session: h.session, model, prompt: "Plan", control: h.provider, kernel: h.kernel });
    expect(resultOf(server, 1, "r1")).toMatchObject({ ok: false, error: { code: "BATCH_REFUSED" } });
    expect(resultOf(server, 1, "p1")).toMatchObject({ ok: false, error: { code: "BATCH_EXCLUSIVE" } });
    expect(existsSync(join(workspace, ".pablo"))).toBe(false);
  });

  it("write each submission to a new file", async () => {
    const workspace = useWorkspace();
    const h = await harness({ workspace, mode: "plan" });
    const { model } = await scripted("anthropic", [
      { toolCalls: [{ id: "p1", name: "SubmitPlan", input: { markdown: "# One\n" } }] },
      { toolCalls: [{ id: "p2", name: "SubmitPlan", input: { markdown: "# Two\n" } }] },
      { text: "done" },
    ]);
    await runAgent({
      session: h.session,
      model,
      prompt: "Plan twice",
      control: h.provider,
      kernel: h.kernel,
    });
    const files = readdirSync(join(workspace, ".pablo", "plan")).sort();
    expect(files).toHaveLength(2);
    const contents = files.map((f) => readFileSync(join(workspace, ".pablo", "plan", f), "utf8")).sort();
    expect(contents).toEqual(["# One\n", "# Two\n"]);
  });

  it("refuse a .pablo that is a symbolic link and write nothing through it", async () => {
    const workspace = useWorkspace();
    const outside = useWorkspace();
    symlinkSync(outside, join(workspace, ".pablo"));
    const h = await harness({ workspace, mode: "plan" });
    const { server, model } = await scripted("anthropic", [
      { toolCalls: [{ id: "p1", name: "SubmitPlan", input: { markdown: "# P\n" } }] },
      { text: "ok" },
    ]);
    await runAgent({ session: h.session, model, prompt: "Plan", control: h.provider, kernel: h.kernel });
    expect(resultOf(server, 1, "p1")).toMatchObject({ ok: false, error: { code: "SYMLINK_REFUSED" } });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("are governed by write-root policy on the artifact path", async () => {
    const workspace = useWorkspace();
    mkdirSync(join(workspace, "docs"));
    const layer = defineLayer({
      id: "deployment",
      "fs.write": { allow: [{ id: "docs-only", path: join(workspace, "docs") }] },
    });
    const h = await harness({ workspace, mode: "plan", layers: [layer] });
    const { server, model } = await scripted("anthropic", [
      { toolCalls: [{ id: "p1", name: "SubmitPlan", input: { markdown: "# P\n" } }] },
      { text: "ok" },
    ]);
    const result = await runAgent({
      session: h.session,
      model,
      prompt: "Plan",
      control: h.provider,
      kernel: h.kernel,
    });
    expect(resultOf(server, 1, "p1")).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect(result.denials).toEqual([
      expect.objectContaining({ tool: "agent.submit-plan", layer: "deployment", rule: "default" }),
    ]);
  });

  it("refuse a direct call that no agent loop issued", async () => {
    const h = await harness({ workspace: useWorkspace(), mode: "plan" });
    const outcome = await h.session.call({ tool: "SubmitPlan", args: { markdown: "# P\n" } });
    expect(outcome.result).toMatchObject({ ok: false, error: { code: "AGENT_STATE" } });
  });
});

describe("EnterPlanMode and EnterGoalMode", () => {
  it("move Agent to Plan after host validation; the next request offers Plan's tools", async () => {
    const h = await harness({ workspace: useWorkspace() });
    const { server, model } = await scripted("anthropic", [
      { toolCalls: [{ id: "e1", name: "EnterPlanMode", input: {} }] },
      { toolCalls: [{ id: "e2", name: "EnterGoalMode", input: {} }] },
      { text: "Planning." },
    ]);
    await runAgent({
      session: h.session,
      model,
      prompt: "Plan first",
      control: h.provider,
      kernel: h.kernel,
      onEvent: h.onEvent,
    });
    expect(toolNames(server.requests[0])).toEqual(expect.arrayContaining(["EnterPlanMode", "fs_write"]));
    expect(toolNames(server.requests[0])).not.toContain("SubmitPlan");
    expect(toolNames(server.requests[1])).toContain("SubmitPlan");
    expect(toolNames(server.requests[1])).not.toContain("fs_write");
    expect(toolNames(server.requests[1])).not.toContain("EnterGoalMode");
    expect(anthropicSystem(server.requests[1])).toContain("Mode: Plan");
    // From Plan, the other mode tool is hard-denied by the kernel's matrix.
    expect(resultOf(server, 2, "e2")).toMatchObject({ ok: false, error: { code: "DISABLED_IN_MODE" } });
    expect(h.session.mode).toBe("plan");
    expect(h.events).toContainEqual({ type: "mode.changed", agent: "root", from: "agent", to: "plan" });
  });

  it("refuse to share a batch", async () => {
    const h = await harness({ workspace: useWorkspace() });
    const { server, model } = await scripted("anthropic", [
      {
        toolCalls: [
          { id: "e1", name: "EnterPlanMode", input: {} },
          { id: "g1", name: "fs_glob", input: { pattern: "*" } },
        ],
      },
      { text: "ok" },
    ]);
    await runAgent({ session: h.session, model, prompt: "x", control: h.provider, kernel: h.kernel });
    expect(resultOf(server, 1, "e1")).toMatchObject({ ok: false, error: { code: "BATCH_EXCLUSIVE" } });
    expect(resultOf(server, 1, "g1")).toMatchObject({ ok: false, error: { code: "BATCH_REFUSED" } });
    expect(h.session.mode).toBe("agent");
  });
});
