import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PermissionBroker } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { harness, silentBroker } from "../test-support/harness.js";
import { type Provider, scripted } from "../test-support/providers.js";
import { anthropicToolResults, bodyOf, toolNames } from "../test-support/requests.js";
import { useWorkspace } from "../test-support/workspace.js";
import { anthropicFrames } from "../testing/anthropic-wire.js";
import { runAgent } from "./agent.js";

describe.each<Provider>(["anthropic", "openai-compatible"])("the loop over %s", (provider) => {
  it("runs a multi-turn task: reads, writes at the revision it read, and answers", async () => {
    const workspace = useWorkspace();
    writeFileSync(join(workspace, "notes.txt"), "draft\n");
    const h = await harness({ workspace });
    const { server, model } = await scripted(provider, [
      {
        text: "Reading the notes.",
        toolCalls: [{ id: "call_1", name: "fs_read", input: { path: "notes.txt" } }],
      },
      { toolCalls: [{ id: "call_2", name: "fs_write", input: { path: "notes.txt", content: "final\n" } }] },
      { text: "Updated notes.txt." },
    ]);
    const result = await runAgent({
      session: h.session,
      model,
      prompt: "Finalize notes.txt",
      onEvent: h.onEvent,
      control: h.provider,
    });
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Updated notes.txt.");
    expect(result.turns).toBe(3);
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("final\n");
    expect(result.calls.map((c) => [c.tool, c.ok, c.decision])).toEqual([
      ["fs.read", true, "allow"],
      ["fs.write", true, "allow"],
    ]);
    expect(result.changes).toEqual([expect.objectContaining({ path: "notes.txt", callId: "call_2" })]);
    expect(result.committed).toEqual(["call_2"]);
    expect(result.budgets).toMatchObject({ modelCalls: 3, toolCalls: 2 });
    // The second request carries the kernel's serialized result of the first call, byte for byte.
    const audit = h.audit.records[0];
    expect(audit?.callId).toBe("call_1");
    if (provider === "anthropic") {
      const sent = anthropicToolResults(server.requests[1]).get("call_1");
      expect(JSON.parse(sent?.content ?? "{}")).toMatchObject({
        ok: true,
        data: { path: "notes.txt", content: "draft\n" },
      });
      expect(sent?.isError).toBe(false);
    } else {
      const messages = bodyOf(server.requests[1])["messages"] as Array<{
        role: string;
        tool_call_id?: string;
        content?: string;
      }>;
      const tool = messages.find((m) => m.role === "tool" && m.tool_call_id === "call_1");
      expect(JSON.parse(tool?.content ?? "{}")).toMatchObject({ ok: true, data: { content: "draft\n" } });
    }
    expect(
      h.events
        .filter((e) => e.type === "model.text")
        .map((e) => (e.type === "model.text" ? e.text : ""))
        .join(""),
    ).toContain("Reading the notes.");
  });

  it("denies a write in Plan mode before any permission prompt and never offers it", async () => {
    const workspace = useWorkspace();
    const { broker, requests } = silentBroker();
    const h = await harness({ workspace, mode: "plan", permission: { mode: "ask" }, broker });
    const { server, model } = await scripted(provider, [
      { toolCalls: [{ id: "call_w", name: "fs_write", input: { path: "x.txt", content: "no" } }] },
      { text: "I cannot write in Plan mode." },
    ]);
    const result = await runAgent({ session: h.session, model, prompt: "Write x.txt", control: h.provider });
    expect(result.status).toBe("completed");
    expect(toolNames(server.requests[0])).not.toContain("fs_write");
    expect(toolNames(server.requests[0])).toContain("SubmitPlan");
    expect(result.denials).toEqual([
      {
        agent: "root",
        callId: "call_w",
        tool: "fs.write",
        code: "DISABLED_IN_MODE",
        layer: "mode",
        rule: "mode.plan.write",
      },
    ]);
    expect(requests).toHaveLength(0);
    expect(existsSync(join(workspace, "x.txt"))).toBe(false);
  });

  it("denies a call whose permission request gets no answer in time", async () => {
    const workspace = useWorkspace();
    const { broker, requests } = silentBroker();
    const h = await harness({ workspace, permission: { mode: "ask", timeoutMs: 150 }, broker });
    const { model } = await scripted(provider, [
      { toolCalls: [{ id: "call_t", name: "fs_write", input: { path: "t.txt", content: "x" } }] },
      { text: "The write was not approved." },
    ]);
    const result = await runAgent({ session: h.session, model, prompt: "Write t.txt", control: h.provider });
    expect(requests).toHaveLength(1);
    expect(result.denials).toEqual([
      expect.objectContaining({
        tool: "fs.write",
        code: "TOOL_DENIED",
        layer: "permission",
        rule: "permission.ask.high",
      }),
    ]);
    expect(result.calls[0]).toMatchObject({ prompted: true });
    expect(result.calls[0]?.permissionWaitMs).toBeGreaterThanOrEqual(140);
    expect(h.audit.records[0]?.permissionAnswer).toBe("timeout");
    expect(existsSync(join(workspace, "t.txt"))).toBe(false);
  });

  it("stops a response that passes the output limit", async () => {
    const workspace = useWorkspace();
    const h = await harness({ workspace, limits: { modelOutputBytes: 2000 } });
    const { model } = await scripted(provider, [{ text: "x".repeat(20_000), chunk: 500 }]);
    const result = await runAgent({ session: h.session, model, prompt: "Talk a lot", control: h.provider });
    expect(result.status).toBe("limit");
    expect(result.reason).toMatch(/2000-byte output limit/);
    expect(result.budgets.outputBytes).toBeLessThanOrEqual(2500);
  });

  it("ends with the model's refusal", async () => {
    const h = await harness({ workspace: useWorkspace() });
    const { model } = await scripted(provider, [{ text: "I can't help with that.", stop: "refusal" }]);
    const result = await runAgent({
      session: h.session,
      model,
      prompt: "Do something bad",
      control: h.provider,
    });
    expect(result.status).toBe("refused");
  });
});

describe("the loop's bounds and failures", () => {
  it("stops when no model call remains, before asking the model", async () => {
    const h = await harness({ workspace: useWorkspace(), limits: { modelCalls: 1 } });
    const { server, model } = await scripted("anthropic", [
      { toolCalls: [{ id: "call_1", name: "fs_glob", input: { pattern: "*" } }] },
      { text: "never sent" },
    ]);
    const result = await runAgent({ session: h.session, model, prompt: "List", control: h.provider });
    expect(result.status).toBe("budget");
    expect(server.requests).toHaveLength(1);
    // No tool starts when no model call is left to read its result.
    expect(result.calls[0]).toMatchObject({ ok: false, code: "BUDGET_EXHAUSTED" });
  });

  it("reports a malformed stream as a model error and runs none of its calls", async () => {
    const h = await harness({ workspace: useWorkspace() });
    const good = anthropicFrames({ toolCalls: [{ id: "c", name: "fs_glob", input: { pattern: "*" } }] });
    const { model } = await scripted("anthropic", [
      {
        kind: "sse",
        frames: [...good.slice(0, 3), "event: content_block_delta\ndata: {broken\n\n", ...good.slice(3)],
      },
    ]);
    const result = await runAgent({ session: h.session, model, prompt: "List", control: h.provider });
    expect(result.status).toBe("model-error");
    expect(result.reason).toMatch(/^MODEL_STREAM_MALFORMED/);
    expect(h.audit.records).toHaveLength(0);
  });

  it("denies an outstanding permission request when the run is cancelled", async () => {
    const controller = new AbortController();
    const broker: PermissionBroker = {
      request: (_request, signal) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => resolve("allow-once"), { once: true });
          // Cancel the run while this request is outstanding: the moment under test, not a timer.
          controller.abort();
        }),
    };
    const workspace = useWorkspace();
    const h = await harness({ workspace, permission: { mode: "ask" }, broker });
    const { server, model } = await scripted("anthropic", [
      { toolCalls: [{ id: "w1", name: "fs_write", input: { path: "w.txt", content: "x" } }] },
      { text: "never asked" },
    ]);
    const started = Date.now();
    const result = await runAgent({
      session: h.session,
      model,
      prompt: "Write",
      control: h.provider,
      signal: controller.signal,
    });
    expect(result.status).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(h.audit.records[0]).toMatchObject({
      callId: "w1",
      decision: "deny",
      permissionAnswer: "cancelled",
    });
    expect(existsSync(join(workspace, "w.txt"))).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it("cancels while the model is streaming and closes the connection", async () => {
    const h = await harness({ workspace: useWorkspace() });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { model } = await scripted("anthropic", [
      { kind: "sse", frames: anthropicFrames({ text: "Thinking about it..." }).slice(0, 4), hold: held },
    ]);
    const controller = new AbortController();
    const run = runAgent({
      session: h.session,
      model,
      prompt: "Think",
      control: h.provider,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "model.text") controller.abort();
      },
    });
    const started = Date.now();
    const result = await run;
    release();
    expect(result.status).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
