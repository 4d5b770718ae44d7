import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionNotification } from "@agentclientprotocol/sdk";
import { Agent, type AgentEvent, createModel, findAgentProvider } from "@pablo/agent";
import type { ElicitationRequest, PermissionBroker, PermissionRequest } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseCommand } from "../args.js";
import { openTask } from "../distribution.js";
import { routedModel } from "../e2e/routed-model.js";
import { captureIo, useSandbox } from "../test-support/cli-harness.js";
import { acpChildHost } from "./children.js";

type Sandbox = ReturnType<typeof useSandbox>;

function deployment(sandbox: Sandbox, permission: string, tools: string): string {
  return sandbox.write(
    "deployment.toml",
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

function recordingBroker(answer: "allow-once" | "deny"): {
  broker: PermissionBroker;
  asked: PermissionRequest[];
} {
  const asked: PermissionRequest[] = [];
  return {
    asked,
    broker: {
      request: async (request) => {
        asked.push(request);
        return answer;
      },
    },
  };
}

/**
 * The root of a `pablo run` with its children on an ACP host, as run.ts wires it: the task,
 * the host (its updates and events recorded), and the agent.
 */
async function rootWithChildren(
  sandbox: Sandbox,
  options: {
    config: string;
    env: Record<string, string>;
    kernelBroker?: PermissionBroker;
    rootBroker?: PermissionBroker;
  },
) {
  const { io } = captureIo(sandbox, { env: options.env });
  const parsed = parseCommand(["--config", options.config, "--allow-write"], {});
  const task = await openTask(parsed.global, {
    cwd: io.cwd,
    env: io.env,
    ...(options.kernelBroker ? { broker: options.kernelBroker } : {}),
  });
  onTestFinished(() => task.close());
  const created = createModel("anthropic:claude-children", io.env, { resolver: task.credentials });
  if (!created.ok) throw new Error(created.message);
  const updates: SessionNotification[] = [];
  const events: AgentEvent[] = [];
  const host = acpChildHost({
    task,
    model: created.model,
    onEvent: (event) => events.push(event),
    onUpdate: (notification) => updates.push(notification),
    broker: options.rootBroker ?? task.kernel.options.broker,
  });
  onTestFinished(() => host.close());
  const provider = findAgentProvider(task.providers);
  if (!provider?.children) throw new Error("the deployment enables children");
  const agent = new Agent({
    session: task.session,
    model: created.model,
    kernel: task.kernel,
    control: provider,
    children: { ...provider.children, host },
    onEvent: (event) => events.push(event),
  });
  return { task, agent, updates, events };
}

describe("children through the ACP handlers", () => {
  it("run as ACP sessions of their own, whose updates and agent events reach the root", async () => {
    const sandbox = useSandbox({ "notes.txt": "line one\n" });
    const model = await routedModel({
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD read notes.txt" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 20_000 } }] },
        { toolCalls: [{ id: "h1", name: "child_handoff", input: { child: "c1", artifact: "notes.txt" } }] },
        { text: "The child read it." },
      ],
      "CHILD read": [
        { toolCalls: [{ id: "r1", name: "fs_read", input: { path: "notes.txt" } }] },
        { text: "CHILD-ANSWER: one line." },
      ],
    });
    const root = await rootWithChildren(sandbox, {
      config: deployment(sandbox, 'mode = "auto"', '["Read"]'),
      env: model.env,
    });
    const result = await root.agent.prompt("ROOT: delegate");
    expect(result.status).toBe("completed");

    // The child's session is an ACP session other than the root's, with the usual updates.
    const sessions = [...new Set(root.updates.map((n) => n.sessionId))];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).not.toBe(root.task.session.id);
    const kinds = root.updates.map((n) => n.update.sessionUpdate);
    expect(kinds.filter((k, i) => k !== kinds[i - 1])).toEqual([
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    expect(root.updates[0]?.update).toMatchObject({
      toolCallId: "r1",
      kind: "read",
      status: "pending",
      rawInput: { path: "notes.txt" },
    });
    expect(root.updates[1]?.update).toMatchObject({ toolCallId: "r1", status: "completed" });
    const text = root.updates
      .map((n) => (n.update.sessionUpdate === "agent_message_chunk" ? n.update.content : undefined))
      .map((c) => (c?.type === "text" ? c.text : ""))
      .join("");
    expect(text).toBe("CHILD-ANSWER: one line.");

    // Its agent events came back over the connection, under the child's name.
    const childResult = root.events.find((e) => e.type === "tool.result" && e.callId === "r1");
    expect(childResult).toMatchObject({ agent: "child:c1", tool: "fs.read", ok: true });
    expect(root.events.filter((e) => e.type === "child.state").map((e) => e.state)).toEqual([
      "running",
      "completed",
    ]);

    // The typed handoff still works from the result the child's prompt response carried.
    expect(result.calls.map((c) => [c.agent, c.tool])).toContainEqual(["child:c1", "fs.read"]);
    const last = model.server.requests.at(-1);
    expect(JSON.stringify(last?.body)).toContain("CHILD-ANSWER: one line.");
    expect(JSON.stringify(last?.body)).toContain("line one");
  });

  it("end the child's ACP turn as cancelled when the root is cancelled", async () => {
    const sandbox = useSandbox();
    const model = await routedModel({
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD slow" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 60_000 } }] },
      ],
      // The child's model never answers; only the cancel ends its turn.
      "CHILD slow": [() => new Promise(() => undefined)],
    });
    const root = await rootWithChildren(sandbox, {
      config: deployment(sandbox, 'mode = "auto"', '["Read"]'),
      env: model.env,
    });
    const controller = new AbortController();
    const started = Date.now();
    const childAsked = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (model.server.requests.some((r) => JSON.stringify(r.body).includes("CHILD slow"))) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    const running = root.agent.prompt("ROOT: go", { signal: controller.signal });
    await childAsked;
    controller.abort();
    const result = await running;
    expect(result.status).toBe("cancelled");
    expect(root.events.filter((e) => e.type === "child.state").map((e) => e.state)).toEqual([
      "running",
      "cancelled",
    ]);
    // The child's loop saw the cancel through session/cancel: its prompt ended cancelled.
    expect(root.events).toContainEqual(
      expect.objectContaining({ type: "prompt.finished", agent: "child:c1", status: "cancelled" }),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("ask a child's permission request on its ACP connection, answered by the root's broker", async () => {
    const sandbox = useSandbox();
    const model = await routedModel({
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD write" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 20_000 } }] },
        { text: "done" },
      ],
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
    // The kernel's own broker must not be asked for the child: only the ACP card's answerer is.
    const kernel = recordingBroker("deny");
    const root = recordingBroker("allow-once");
    const r = await rootWithChildren(sandbox, {
      config: deployment(sandbox, 'mode = "ask"', '["Read", "Write"]'),
      env: model.env,
      kernelBroker: kernel.broker,
      rootBroker: root.broker,
    });
    const result = await r.agent.prompt("ROOT: delegate");
    expect(result.status).toBe("completed");
    expect(kernel.asked).toEqual([]);
    expect(root.asked.map((q) => [q.callId, q.tool, q.requester])).toEqual([["x1", "fs.write", "child:c1"]]);
    expect(readFileSync(join(sandbox.workspace, "new.txt"), "utf8")).toBe("hi\n");
  });

  it("deny a child's permission request when the root's broker denies it", async () => {
    const sandbox = useSandbox();
    const model = await routedModel({
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD write" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 20_000 } }] },
        { text: "done" },
      ],
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
        { text: "denied" },
      ],
    });
    const root = recordingBroker("deny");
    const r = await rootWithChildren(sandbox, {
      config: deployment(sandbox, 'mode = "ask"', '["Read", "Write"]'),
      env: model.env,
      kernelBroker: root.broker,
    });
    await r.agent.prompt("ROOT: delegate");
    expect(root.asked.map((q) => q.callId)).toEqual(["x1"]);
    expect(existsSync(join(sandbox.workspace, "new.txt"))).toBe(false);
    expect(r.events).toContainEqual(
      expect.objectContaining({ type: "tool.result", agent: "child:c1", callId: "x1", code: "TOOL_DENIED" }),
    );
  });

  it("forward a question to the root's broker when it can ask one, and offer none when it cannot", async () => {
    const sandbox = useSandbox();
    const { io } = captureIo(sandbox, { env: {} });
    const parsed = parseCommand(["--config", deployment(sandbox, 'mode = "auto"', '["Read"]')], {});
    const task = await openTask(parsed.global, { cwd: io.cwd, env: io.env });
    onTestFinished(() => task.close());
    // No child runs in this test, so no model is ever asked.
    const model = { id: "unused", stream: async function* () {} };
    const hostOver = (broker: PermissionBroker) => {
      const host = acpChildHost({ task, model, onEvent: () => undefined, broker });
      onTestFinished(() => host.close());
      return host;
    };
    const question: ElicitationRequest = {
      server: "records",
      message: "Which release?",
      fields: { release: { type: "string" } },
      required: [],
      deadline: Date.now() + 60_000,
    };
    const asked: Array<[ElicitationRequest, AbortSignal]> = [];
    const asking = hostOver({
      request: async () => "deny",
      elicit: async (request, signal) => {
        asked.push([request, signal]);
        return { action: "accept", content: { release: "1.2" } };
      },
    });
    const signal = new AbortController().signal;
    expect(await asking.broker?.elicit?.(question, signal)).toEqual({
      action: "accept",
      content: { release: "1.2" },
    });
    expect(asked).toEqual([[question, signal]]);
    expect(hostOver({ request: async () => "deny" }).broker?.elicit).toBeUndefined();
  });
});
