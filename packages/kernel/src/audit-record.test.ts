import { describe, expect, it } from "vitest";
import { createCatalog, createKernel, defineLayer, MemoryAuditSink, MemoryEventSink, ok } from "./index.js";
import { ScriptedBroker } from "./test-support/session.js";
import { echoTool, writeTool } from "./test-support/tools.js";

describe("audit and events", () => {
  it("writes one record per call with decision and timing segments, denied calls included", async () => {
    const audit = new MemoryAuditSink();
    const session = createKernel({ audit, broker: new ScriptedBroker("allow-once") }).openSession({
      sessionId: "s1",
      catalog: createCatalog([echoTool(), writeTool()]),
      layers: [defineLayer({ id: "deployment", "fs.write": { deny: [{ id: "no-etc", path: "/etc" }] } })],
    });
    await session.call({ tool: "test_echo", args: { text: "hello" }, callId: "c1", turnId: "t1" });
    await session.call({ tool: "test_write", args: { path: "/etc/x" }, callId: "c2", turnId: "t1" });
    await session.call({ tool: "test_write", args: { path: "/w/x" }, callId: "c3", turnId: "t1" });
    expect(audit.records).toHaveLength(3);
    const [read, denied, prompted] = audit.records;
    expect(read).toMatchObject({
      sessionId: "s1",
      turnId: "t1",
      callId: "c1",
      tool: "test.echo",
      decision: "allow",
      ok: true,
      prompted: false,
    });
    expect(read?.argsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(denied).toMatchObject({
      decision: "deny",
      layer: "deployment",
      rule: "no-etc",
      durationMs: 0,
      errorCode: "TOOL_DENIED",
    });
    expect(prompted).toMatchObject({
      decision: "allow",
      prompted: true,
      permissionAnswer: "allow-once",
      committed: true,
    });
    for (const r of audit.records) expect(r.totalMs).toBe(r.permissionWaitMs + r.durationMs + r.overheadMs);
  });

  it("stamps each record with its own call's start time, calls in one millisecond and across them alike", async () => {
    const audit = new MemoryAuditSink();
    let clock = 0;
    const session = createKernel({ audit, now: () => clock }).openSession({
      catalog: createCatalog([echoTool()]),
    });
    // Two calls in each millisecond, then a jump forward and one back in time.
    const starts = [1_000, 1_000, 1_001, 1_001, 86_400_000, 999];
    for (const [i, start] of starts.entries()) {
      clock = start;
      await session.call({ tool: "test_echo", args: { text: `t${i}` } });
    }
    expect(audit.records.map((r) => r.at)).toEqual(starts.map((ms) => new Date(ms).toISOString()));
  });

  it("redacts secrets in argument previews", async () => {
    const audit = new MemoryAuditSink();
    const session = createKernel({ audit }).openSession({ catalog: createCatalog([echoTool()]) });
    const secret = "sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm";
    await session.call({ tool: "test_echo", args: { text: `use ${secret} please` } });
    expect(audit.records[0]?.argsPreview).not.toContain(secret);
    expect(audit.records[0]?.argsPreview).toContain("[REDACTED]");
  });

  it("emits events without arguments or content unless content capture is on", async () => {
    const events = new MemoryEventSink();
    const progress = echoTool({
      execute: async (args, ctx) => {
        const { text } = args as { text: string };
        ctx.progress({ kind: "stdout", data: `secret-content ${text}` });
        return ok(text);
      },
    });
    const plain = createKernel({ events }).openSession({ catalog: createCatalog([progress]) });
    await plain.call({ tool: "test_echo", args: { text: "/home/user/private.txt" } });
    expect(events.events.map((e) => e.type)).toEqual(["tool.started", "tool.progress", "tool.finished"]);
    expect(JSON.stringify(events.events)).not.toMatch(/private\.txt|secret-content/);

    const captured = new MemoryEventSink();
    const capturing = createKernel({ events: captured, captureContent: true }).openSession({
      catalog: createCatalog([progress]),
    });
    await capturing.call({ tool: "test_echo", args: { text: "/home/user/private.txt" } });
    expect(JSON.stringify(captured.events)).toMatch(/private\.txt/);
  });

  it("stops emitting once the native event budget is spent, and counts what it dropped", async () => {
    const events = new MemoryEventSink();
    const chatty = echoTool({
      execute: async (_args, ctx) => {
        for (let i = 0; i < 100; i++) ctx.progress({ kind: "tick", data: i });
        return ok(null);
      },
    });
    const session = createKernel({ events, limits: { nativeEvents: 10 } }).openSession({
      catalog: createCatalog([chatty]),
    });
    await session.call({ tool: "test_echo", args: { text: "x" } });
    expect(events.events).toHaveLength(10);
    expect(session.budget.eventsDropped).toBe(92);
  });

  it("keeps the tool's audit notes out of what the model receives", async () => {
    const audit = new MemoryAuditSink();
    const noting = echoTool({
      execute: async () => ({ ok: true, data: "body", auditNotes: { contentHash: "abc" } }),
    });
    const session = createKernel({ audit }).openSession({ catalog: createCatalog([noting]) });
    const { result } = await session.call({ tool: "test_echo", args: { text: "x" } });
    expect(result).toEqual({ ok: true, data: "body" });
    expect(audit.records[0]?.notes).toEqual({ contentHash: "abc" });
  });
});
