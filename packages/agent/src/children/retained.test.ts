import { defineTool, ok } from "@pablo/kernel";
import Type from "typebox";
import { describe, expect, it } from "vitest";
import { runAgent } from "../loop/agent.js";
import { harness } from "../test-support/harness.js";
import { modelFor } from "../test-support/providers.js";
import { anthropicToolResults } from "../test-support/requests.js";
import { routed } from "../test-support/routes.js";
import { useWorkspace } from "../test-support/workspace.js";
import { registerHandoffSource } from "./retained.js";

/** A tool that keeps its output outside the result, as an A2A remote tool does. */
const retaining = defineTool({
  name: "demo.retain",
  description: "Produces a result and retains it for child_handoff.",
  summary: "Retain",
  inputSchema: Type.Object({}, { additionalProperties: false }),
  risk: "low",
  effects: ["ui"],
  category: "read",
  mutates: false,
  execute: async (_args, ctx) => {
    const held = new Map([["r1", { content: "the remote artifact" }]]);
    registerHandoffSource(ctx, "r", (id) => {
      const value = held.get(id);
      held.delete(id);
      return value;
    });
    return ok({ retained: "r1" });
  },
});

describe("child_handoff for retained results", () => {
  it("is offered without children and promotes a retained result once", async () => {
    const workspace = useWorkspace();
    const h = await harness({ workspace, handoff: true, tools: [retaining] });
    expect(h.session.catalog.entries.map((e) => e.providerName)).toContain("child_handoff");
    expect(h.session.catalog.entries.map((e) => e.providerName)).not.toContain("child_start");
    const server = await routed("anthropic", {
      ROOT: [
        { toolCalls: [{ id: "t1", name: "demo_retain", input: {} }] },
        { toolCalls: [{ id: "h1", name: "child_handoff", input: { child: "r1" } }] },
        { toolCalls: [{ id: "h2", name: "child_handoff", input: { child: "r1" } }] },
        { text: "done" },
      ],
    });
    const result = await runAgent({
      session: h.session,
      model: modelFor("anthropic", server),
      kernel: h.kernel,
      control: h.provider,
      prompt: "ROOT: retain and promote",
    });
    expect(result.status).toBe("completed");
    const last = server.requests.at(-1);
    const first = JSON.parse(anthropicToolResults(last).get("h1")?.content ?? "null");
    const second = JSON.parse(anthropicToolResults(last).get("h2")?.content ?? "null");
    expect(first).toEqual({ ok: true, data: { content: "the remote artifact" } });
    expect(second).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });
});
