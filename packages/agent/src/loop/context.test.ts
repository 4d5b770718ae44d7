import { describe, expect, it } from "vitest";
import type { QuestionPort } from "../control/ports.js";
import { harness } from "../test-support/harness.js";
import { scripted } from "../test-support/providers.js";
import { anthropicToolResults, bodyOf } from "../test-support/requests.js";
import { useWorkspace } from "../test-support/workspace.js";
import { anthropicFrames } from "../testing/anthropic-wire.js";
import { runAgent } from "./agent.js";

function messagesOf(request: Parameters<typeof bodyOf>[0]) {
  return bodyOf(request)["messages"] as Array<{ role: string; content: unknown }>;
}

describe("new_context and automatic compaction", () => {
  it("compact at the next turn boundary when the model asks", async () => {
    const h = await harness({ workspace: useWorkspace() });
    const { server, model } = await scripted("anthropic", [
      { text: "Looking.", toolCalls: [{ id: "g1", name: "fs_glob", input: { pattern: "*" } }] },
      { toolCalls: [{ id: "n1", name: "new_context", input: {} }] },
      { text: "Done after compaction." },
    ]);
    const result = await runAgent({
      session: h.session,
      model,
      prompt: "Survey the tree",
      control: h.provider,
      onEvent: h.onEvent,
    });
    expect(result.status).toBe("completed");
    expect(messagesOf(server.requests[1]).length).toBeGreaterThan(1);
    const after = messagesOf(server.requests[2]);
    expect(after).toHaveLength(1);
    const text = JSON.stringify(after[0]?.content);
    expect(text).toContain("Survey the tree");
    expect(text).toContain("<context-summary>");
    expect(text).toContain("call fs_glob");
    expect(h.events).toContainEqual({
      type: "context.compacted",
      agent: "root",
      reason: "requested",
      messagesBefore: 5,
      messagesAfter: 1,
    });
    expect(result.budgets.compactions).toBe(1);
  });

  it("compact on their own when a request passes the request limit", async () => {
    const h = await harness({ workspace: useWorkspace(), limits: { requestContextBytes: 9000 } });
    const big = "y".repeat(6000);
    const { server, model } = await scripted("anthropic", [
      { text: big, toolCalls: [{ id: "g1", name: "fs_glob", input: { pattern: "*" } }] },
      { text: "Finished." },
    ]);
    const result = await runAgent({
      session: h.session,
      model,
      prompt: "Go",
      control: h.provider,
      onEvent: h.onEvent,
    });
    expect(result.status).toBe("completed");
    expect(messagesOf(server.requests[1])).toHaveLength(1);
    expect(h.events.some((e) => e.type === "context.compacted" && e.reason === "budget")).toBe(true);
  });
});

describe("asktool", () => {
  it("returns the answers in order, empty for skipped ones", async () => {
    const h = await harness({ workspace: useWorkspace() });
    const asked: string[][] = [];
    const questions: QuestionPort = {
      ask: async (qs) => {
        asked.push(qs.map((q) => q.question));
        return ["Yes, ship it", undefined];
      },
    };
    const { server, model } = await scripted("anthropic", [
      {
        toolCalls: [
          {
            id: "q1",
            name: "asktool",
            input: {
              questions: [{ question: "Ship today?", options: ["Yes", "No"] }, { question: "Who reviews?" }],
            },
          },
        ],
      },
      { text: "ok" },
    ]);
    await runAgent({ session: h.session, model, prompt: "Release", control: h.provider, questions });
    expect(asked).toEqual([["Ship today?", "Who reviews?"]]);
    expect(JSON.parse(anthropicToolResults(server.requests[1]).get("q1")?.content ?? "{}")).toEqual({
      ok: true,
      data: {
        answers: [
          { question: "Ship today?", answer: "Yes, ship it", skipped: false },
          { question: "Who reviews?", answer: "", skipped: true },
        ],
      },
    });
  });

  it("skips every question when the host has no way to ask", async () => {
    const h = await harness({ workspace: useWorkspace() });
    const { server, model } = await scripted("anthropic", [
      { toolCalls: [{ id: "q1", name: "asktool", input: { questions: [{ question: "Name?" }] } }] },
      { text: "ok" },
    ]);
    await runAgent({ session: h.session, model, prompt: "x", control: h.provider });
    expect(JSON.parse(anthropicToolResults(server.requests[1]).get("q1")?.content ?? "{}")).toMatchObject({
      data: { answers: [{ answer: "", skipped: true }] },
    });
  });

  it("resolves an open question as skipped when the turn is stopped", async () => {
    const h = await harness({ workspace: useWorkspace() });
    let portSignal: AbortSignal | undefined;
    const controller = new AbortController();
    const questions: QuestionPort = {
      ask: (_qs, { signal }) => {
        portSignal = signal;
        controller.abort();
        return new Promise(() => undefined);
      },
    };
    const { model } = await scripted("anthropic", [
      {
        kind: "sse",
        frames: anthropicFrames({
          toolCalls: [{ id: "q1", name: "asktool", input: { questions: [{ question: "Wait?" }] } }],
        }),
      },
    ]);
    const result = await runAgent({
      session: h.session,
      model,
      prompt: "x",
      control: h.provider,
      questions,
      signal: controller.signal,
      onEvent: h.onEvent,
    });
    expect(result.status).toBe("cancelled");
    expect(portSignal?.aborted).toBe(true);
    expect(h.events).toContainEqual({ type: "question.asked", agent: "root", questions: 1, answered: 0 });
  });
});
