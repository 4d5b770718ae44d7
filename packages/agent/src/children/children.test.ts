import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgent } from "../loop/agent.js";
import type { ChildState } from "../loop/events.js";
import { harness } from "../test-support/harness.js";
import { modelFor } from "../test-support/providers.js";
import { anthropicToolResults, bodyOf, firstUserText } from "../test-support/requests.js";
import { routed } from "../test-support/routes.js";
import { useWorkspace } from "../test-support/workspace.js";
import type { RecordedRequest } from "../testing/loopback-server.js";

function toolResult(request: RecordedRequest | undefined, id: string) {
  return JSON.parse(anthropicToolResults(request).get(id)?.content ?? "null") as {
    ok: boolean;
    data?: Record<string, unknown>;
    error?: { code: string; message: string };
  };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("supervised children", () => {
  it("run two at a time and queue the third FIFO until one finishes", async () => {
    const h = await harness({ workspace: useWorkspace(), children: {} });
    let inflight = 0;
    let most = 0;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const order: string[] = [];
    const child = (name: string) => async (request: RecordedRequest) => {
      inflight++;
      most = Math.max(most, inflight);
      order.push(firstUserText(request));
      await gate;
      inflight--;
      return { text: `${name} finished` };
    };
    let seenWhileQueued = -1;
    const server = await routed("anthropic", {
      ROOT: [
        {
          toolCalls: [
            { id: "s1", name: "child_start", input: { task: "CHILD one" } },
            { id: "s2", name: "child_start", input: { task: "CHILD two" } },
            { id: "s3", name: "child_start", input: { task: "CHILD three" } },
          ],
        },
        async () => {
          // Both running children ask their model; the third stays queued behind them.
          await until(() => order.length >= 2);
          await new Promise((resolve) => setTimeout(resolve, 100));
          seenWhileQueued = order.length;
          open();
          return {
            toolCalls: [{ id: "w3", name: "child_wait", input: { child: "c3", timeout_ms: 20_000 } }],
          };
        },
        { toolCalls: [{ id: "h3", name: "child_handoff", input: { child: "c3" } }] },
        { text: "All three children finished." },
      ],
      "CHILD one": [child("one")],
      "CHILD two": [child("two")],
      "CHILD three": [child("three")],
    });
    const states: Array<[string, ChildState, number | undefined]> = [];
    const result = await runAgent({
      session: h.session,
      model: modelFor("anthropic", server),
      kernel: h.kernel,
      control: h.provider,
      prompt: "ROOT: fan out",
      onEvent: (e) => {
        if (e.type === "child.state") states.push([e.child, e.state, e.position]);
      },
    });
    expect(result.status).toBe("completed");
    const second = server.requests.find(
      (r) => firstUserText(r).startsWith("ROOT") && anthropicToolResults(r).has("s1"),
    );
    expect(toolResult(second, "s1")).toMatchObject({ ok: true, data: { child: "c1", state: "running" } });
    expect(toolResult(second, "s2")).toMatchObject({ ok: true, data: { child: "c2", state: "running" } });
    expect(toolResult(second, "s3")).toMatchObject({
      ok: true,
      data: { child: "c3", state: "queued", queue_position: 1, running: 2 },
    });
    expect(seenWhileQueued).toBe(2);
    expect(most).toBe(2);
    expect(order).toEqual(["CHILD one", "CHILD two", "CHILD three"]);
    expect(states.slice(0, 3)).toEqual([
      ["c1", "running", undefined],
      ["c2", "running", undefined],
      ["c3", "queued", 1],
    ]);
    const last = server.requests.at(-1);
    expect(toolResult(last, "w3")).toMatchObject({
      ok: true,
      data: { child: "c3", state: "completed", accounting: { model_calls: 1 } },
    });
    expect(toolResult(last, "h3")).toMatchObject({
      ok: true,
      data: { child: "c3", answer: "three finished" },
    });
    // Children share the root's budget: four root turns and three child turns.
    expect(h.session.budget.modelCallsUsed).toBe(7);
  });

  it("keep a child's answer out of the conversation until it is handed off, and hand off once", async () => {
    const workspace = useWorkspace();
    writeFileSync(join(workspace, "notes.txt"), "line one\n");
    const h = await harness({ workspace, children: {} });
    const server = await routed("anthropic", {
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD read notes.txt" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 20_000 } }] },
        { toolCalls: [{ id: "h1", name: "child_handoff", input: { child: "c1", artifact: "notes.txt" } }] },
        { toolCalls: [{ id: "h2", name: "child_handoff", input: { child: "c1" } }] },
        { text: "done" },
      ],
      "CHILD read": [
        {
          toolCalls: [
            { id: "r1", name: "fs_read", input: { path: "notes.txt" } },
            { id: "r2", name: "fs_write", input: { path: "notes.txt", content: "child was here" } },
          ],
        },
        { text: "SECRET-CHILD-ANSWER: the notes have one line." },
      ],
    });
    await runAgent({
      session: h.session,
      model: modelFor("anthropic", server),
      kernel: h.kernel,
      control: h.provider,
      prompt: "ROOT: delegate",
    });
    const roots = server.requests.filter((r) => firstUserText(r).startsWith("ROOT"));
    const afterWait = roots[2];
    expect(toolResult(afterWait, "w1")).toMatchObject({
      ok: true,
      data: { state: "completed", files: ["notes.txt"], handed_off: false },
    });
    expect(JSON.stringify(bodyOf(afterWait))).not.toContain("SECRET-CHILD-ANSWER");
    expect(toolResult(roots[3], "h1")).toMatchObject({
      ok: true,
      data: {
        answer: expect.stringContaining("SECRET-CHILD-ANSWER"),
        artifact: { path: "notes.txt", content: "line one\n" },
      },
    });
    expect(toolResult(roots[4], "h2")).toMatchObject({ ok: false, error: { code: "ALREADY_EXISTS" } });
    // Children are read-only by default: the child's write was denied by the children layer.
    expect(h.audit.records.find((r) => r.callId === "r2")).toMatchObject({
      decision: "deny",
      layer: "children",
      requester: "child:c1",
    });
    expect(existsSync(join(workspace, "notes.txt"))).toBe(true);
  });

  it("refuse a handoff whose file changed since the child read it", async () => {
    const workspace = useWorkspace();
    const notes = join(workspace, "notes.txt");
    writeFileSync(notes, "version one\n");
    const h = await harness({ workspace, children: {} });
    const server = await routed("anthropic", {
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD read notes.txt" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 20_000 } }] },
        () => {
          writeFileSync(notes, "version two, edited by someone else\n");
          return {
            toolCalls: [{ id: "h1", name: "child_handoff", input: { child: "c1", artifact: "notes.txt" } }],
          };
        },
        { text: "The notes changed; I will not use the child's reading." },
      ],
      "CHILD read": [
        { toolCalls: [{ id: "r1", name: "fs_read", input: { path: "notes.txt" } }] },
        { text: "Read it." },
      ],
    });
    await runAgent({
      session: h.session,
      model: modelFor("anthropic", server),
      kernel: h.kernel,
      control: h.provider,
      prompt: "ROOT: delegate",
    });
    const handoff = toolResult(server.requests.at(-1), "h1");
    expect(handoff).toMatchObject({ ok: false, error: { code: "REVISION_CONFLICT" } });
    expect(JSON.stringify(handoff)).not.toContain("version two");
    // The re-check ran under the child's authority, and was audited as the child's call.
    expect(h.audit.records.filter((r) => r.tool === "fs.read").map((r) => r.requester)).toEqual([
      "child:c1",
      "child:c1",
    ]);
  });

  it("are stopped when the root prompt is cancelled", async () => {
    const h = await harness({ workspace: useWorkspace(), children: {} });
    const controller = new AbortController();
    const server = await routed("anthropic", {
      ROOT: [
        { toolCalls: [{ id: "s1", name: "child_start", input: { task: "CHILD slow" } }] },
        { toolCalls: [{ id: "w1", name: "child_wait", input: { child: "c1", timeout_ms: 60_000 } }] },
      ],
      // The child never answers; the root is cancelled once it waits on the child (below).
      "CHILD slow": [() => new Promise(() => undefined)],
    });
    const states: string[] = [];
    const started = Date.now();
    const result = await runAgent({
      session: h.session,
      model: modelFor("anthropic", server),
      kernel: h.kernel,
      control: h.provider,
      prompt: "ROOT: go",
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "child.state") states.push(`${e.child}:${e.state}`);
        if (e.type === "tool.requested" && e.callId === "w1") queueMicrotask(() => controller.abort());
      },
    });
    expect(result.status).toBe("cancelled");
    expect(states).toEqual(["c1:running", "c1:cancelled"]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
