import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PermissionBroker, PermissionRequest, Session } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { Agent, runAgent } from "../loop/agent.js";
import { answeringBroker, harness } from "../test-support/harness.js";
import { modelFor } from "../test-support/providers.js";
import { routed } from "../test-support/routes.js";
import { useWorkspace } from "../test-support/workspace.js";
import type { ChildHost } from "./nested.js";

/** A host that runs each child on a plain agent, recording what the supervisor gave it. */
function recordingHost(model: ReturnType<typeof modelFor>, broker?: PermissionBroker) {
  const spawned: { session: Session; agent: string }[] = [];
  const asked: PermissionRequest[] = [];
  const host: ChildHost = {
    spawn: (session, agent, instructions) => {
      spawned.push({ session, agent });
      return new Agent({ session, model, agent, ...(instructions ? { instructions } : {}) });
    },
    ...(broker
      ? {
          broker: {
            request: (request, signal) => {
              asked.push(request);
              return broker.request(request, signal);
            },
          },
        }
      : {}),
  };
  return { host, spawned, asked };
}

describe("a child host", () => {
  it("runs each child in the session the supervisor opened, still narrowed by the root policy", async () => {
    const workspace = useWorkspace();
    writeFileSync(join(workspace, "notes.txt"), "one\n");
    const h = await harness({ workspace, children: {} });
    const server = await routed("anthropic", {
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD write" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 20_000 } }] },
        { text: "done" },
      ],
      "CHILD write": [
        { toolCalls: [{ id: "x1", name: "fs_write", input: { path: "notes.txt", content: "two\n" } }] },
        { text: "could not write" },
      ],
    });
    const model = modelFor("anthropic", server);
    const { host, spawned } = recordingHost(model);
    const result = await runAgent({
      session: h.session,
      model,
      kernel: h.kernel,
      control: h.provider,
      children: { ...h.provider.children, host },
      prompt: "ROOT: delegate",
    });
    expect(result.status).toBe("completed");
    expect(spawned.map((s) => s.agent)).toEqual(["child:c1"]);
    // The host ran the child, and the children layer still denied its write.
    expect(h.audit.records.find((r) => r.callId === "x1")).toMatchObject({
      decision: "deny",
      layer: "children",
      requester: "child:c1",
    });
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("one\n");
    // Shared budget: three root turns and two child turns.
    expect(h.session.budget.modelCallsUsed).toBe(5);
  });

  it("sends a child's permission request to the host's broker, which answers through the root's", async () => {
    const workspace = useWorkspace();
    const root = answeringBroker("allow-once");
    const h = await harness({
      workspace,
      children: { tools: ["Write"] },
      broker: root.broker,
      permission: { mode: "ask" },
    });
    const server = await routed("anthropic", {
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD write" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 20_000 } }] },
        { text: "done" },
      ],
      "CHILD write": [
        { toolCalls: [{ id: "x1", name: "fs_write", input: { path: "new.txt", content: "hi\n" } }] },
        { text: "written" },
      ],
    });
    const model = modelFor("anthropic", server);
    const { host, asked } = recordingHost(model, root.broker);
    await runAgent({
      session: h.session,
      model,
      kernel: h.kernel,
      control: h.provider,
      children: { ...h.provider.children, host },
      prompt: "ROOT: delegate",
    });
    expect(asked.map((r) => [r.callId, r.requester])).toEqual([["x1", "child:c1"]]);
    expect(root.requests.map((r) => r.callId)).toEqual(["x1"]);
    expect(readFileSync(join(workspace, "new.txt"), "utf8")).toBe("hi\n");
  });

  it("leaves a root without a broker failing closed: the host's broker is not asked", async () => {
    const workspace = useWorkspace();
    const h = await harness({ workspace, children: { tools: ["Write"] }, permission: { mode: "ask" } });
    const server = await routed("anthropic", {
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD write" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 20_000 } }] },
        { text: "done" },
      ],
      "CHILD write": [
        { toolCalls: [{ id: "x1", name: "fs_write", input: { path: "new.txt", content: "hi\n" } }] },
        { text: "denied" },
      ],
    });
    const model = modelFor("anthropic", server);
    const { host, asked } = recordingHost(model, answeringBroker("allow-once").broker);
    await runAgent({
      session: h.session,
      model,
      kernel: h.kernel,
      control: h.provider,
      children: { ...h.provider.children, host },
      prompt: "ROOT: delegate",
    });
    expect(asked).toEqual([]);
    expect(h.audit.records.find((r) => r.callId === "x1")).toMatchObject({
      decision: "deny",
      permissionAnswer: "no-broker",
    });
  });
});
