import { type KernelOptions, MemoryEventSink } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { openMcpCatalog } from "./catalog.js";
import { sessionOver, type TestSession, textOf } from "./test-support/kernel-session.js";
import { isRunning, misbehavingStdio, noCredentials } from "./test-support/servers.js";

async function open(
  extra: Record<string, unknown> = {},
  events?: MemoryEventSink,
  kernel: Partial<KernelOptions> = {},
) {
  const mcp = await openMcpCatalog({ servers: { bad: misbehavingStdio(extra) }, credentials: noCredentials });
  onTestFinished(() => mcp.close());
  const t = await sessionOver(mcp, {
    ...(events ? { events } : {}),
    kernel: { ...kernel, captureContent: !!events },
  });
  const pid = Number(textOf((await t.session.call({ tool: "mcp_bad_pid", args: {} })).result));
  return { mcp, ...t, pid };
}

/** How many hung calls the server saw cancelled (its handler's signal aborted). */
async function cancelledCalls(session: TestSession["session"]): Promise<string> {
  return textOf((await session.call({ tool: "mcp_bad_cancelled", args: {} })).result);
}

describe("a server that crashes mid-call", () => {
  it("reports the disconnect with unknown remote completion, then refuses further calls", async () => {
    const { mcp, session, audit, pid } = await open();
    const crashed = await session.call({ tool: "mcp_bad_crash", args: {} });
    expect(crashed.result).toMatchObject({
      ok: false,
      error: { code: "MCP_SERVER_DISCONNECTED", details: { remoteCompletion: "unknown" } },
    });
    expect(crashed.result.ok ? "" : crashed.result.error.message).toContain("exited with status 3");
    expect(audit.records.at(-1)?.notes).toEqual({ remoteCompletion: "unknown" });
    const after = await session.call({ tool: "mcp_bad_ping", args: {} });
    expect(after.result).toMatchObject({ ok: false, error: { code: "MCP_SERVER_UNAVAILABLE" } });
    expect(mcp.diagnostics).toContainEqual({
      server: "bad",
      code: "MCP_SERVER_EXITED",
      message: "the server exited with status 3",
    });
    expect(isRunning(pid)).toBe(false);
  });
});

describe("a server that hangs past the operation timeout", () => {
  it("times the call out, says remote completion is unknown, and keeps the server usable", async () => {
    const { session } = await open({ operation_timeout_ms: 300 });
    const started = Date.now();
    const hung = await session.call({ tool: "mcp_bad_hang", args: {} });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(hung.result).toMatchObject({
      ok: false,
      error: { code: "TOOL_TIMEOUT", details: { remoteCompletion: "unknown", timeoutMs: 300 } },
    });
    expect(textOf((await session.call({ tool: "mcp_bad_ping", args: {} })).result)).toBe("pong");
  });

  it("is cancelled through the call's signal", async () => {
    const { session, audit } = await open();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { result } = await session.call({ tool: "mcp_bad_hang", args: {}, signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_CANCELLED" } });
    expect(audit.records.at(-1)?.notes).toEqual({ remoteCompletion: "unknown" });
    // The server heard `notifications/cancelled` for that request, and only for it.
    await expect.poll(() => cancelledCalls(session), { timeout: 5_000 }).toBe("1");
  });

  it("tells the server of a call the kernel ended at the run deadline", async () => {
    const { mcp, session } = await open({}, undefined, { limits: { runDeadlineMs: 500 } });
    const { result } = await session.call({ tool: "mcp_bad_hang", args: {} });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    // A fresh session over the same connection: the first one's run is over.
    const { session: next } = await sessionOver(mcp);
    await expect.poll(() => cancelledCalls(next), { timeout: 5_000 }).toBe("1");
  });
});

describe("a server that floods output", () => {
  it("closes the connection when one message exceeds max_message_bytes, and reaps the server", async () => {
    const { session, pid } = await open({ max_message_bytes: 64 * 1024 });
    const { result } = await session.call({ tool: "mcp_bad_big", args: { bytes: 512 * 1024 } });
    expect(result).toMatchObject({ ok: false, error: { code: "MCP_SERVER_DISCONNECTED" } });
    expect(result.ok ? "" : result.error.message).toContain("max_message_bytes");
    await expect.poll(() => isRunning(pid), { timeout: 5_000 }).toBe(false);
  });

  it("drains a stderr flood without keeping it", async () => {
    const { session } = await open();
    const { result } = await session.call({ tool: "mcp_bad_noise", args: { bytes: 32 * 1024 * 1024 } });
    expect(textOf(result)).toBe("quiet now");
  });

  it("forwards at most 1000 progress events per call and still settles", async () => {
    const events = new MemoryEventSink();
    const { session } = await open({}, events);
    const { result, audit } = await session.call({ tool: "mcp_bad_chatty", args: { count: 3000 } });
    expect(textOf(result)).toBe("done");
    const progress = events.events.filter((e) => e.type === "tool.progress" && e.callId === audit.callId);
    expect(progress).toHaveLength(1000);
  });

  it("bounds a large result after serialization", async () => {
    const { session } = await open({}, undefined);
    const { serialized } = await session.call({ tool: "mcp_bad_big", args: { bytes: 2 * 1024 * 1024 } });
    expect(serialized.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(serialized.length).toBeLessThan(8 * 1024 * 1024 + 4096);
  });
});

describe("process lifecycle", () => {
  it("ends and reaps the whole process group on close, grandchildren included", async () => {
    const { mcp, session, pid } = await open();
    const grandchild = Number(textOf((await session.call({ tool: "mcp_bad_spawn-child", args: {} })).result));
    expect(isRunning(grandchild)).toBe(true);
    await mcp.close();
    expect(isRunning(pid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
    expect(mcp.diagnostics.filter((d) => d.code === "MCP_CLEANUP_FAILED")).toEqual([]);
  });

  it("kills a server that ignores stdin close and SIGTERM", async () => {
    const mcp = await openMcpCatalog({
      servers: { stubborn: misbehavingStdio({ shutdown_timeout_ms: 150 }) },
      credentials: noCredentials,
    });
    const t = await sessionOver(mcp);
    const pid = Number(textOf((await t.session.call({ tool: "mcp_stubborn_pid", args: {} })).result));
    await mcp.close();
    expect(isRunning(pid)).toBe(false);
  });

  it("closes everything when the task's signal aborts", async () => {
    const task = new AbortController();
    const mcp = await openMcpCatalog({
      servers: { bad: misbehavingStdio() },
      credentials: noCredentials,
      signal: task.signal,
    });
    onTestFinished(() => mcp.close());
    const t = await sessionOver(mcp);
    const pid = Number(textOf((await t.session.call({ tool: "mcp_bad_pid", args: {} })).result));
    task.abort();
    await expect.poll(() => isRunning(pid), { timeout: 10_000 }).toBe(false);
  });
});

describe("definitions and content", () => {
  it("disables a tool whose definition changes during the task", async () => {
    const { mcp, session } = await open();
    expect(textOf((await session.call({ tool: "mcp_bad_mutable", args: {} })).result)).toBe("pong");
    expect(textOf((await session.call({ tool: "mcp_bad_mutate", args: {} })).result)).toBe("mutated");
    await expect
      .poll(() => mcp.diagnostics.find((d) => d.code === "MCP_DEFINITION_CHANGED"))
      .toEqual({
        server: "bad",
        tool: "mutable",
        code: "MCP_DEFINITION_CHANGED",
        message: "disabled for the rest of the task: its definition changed after admission",
      });
    const { result } = await session.call({ tool: "mcp_bad_mutable", args: {} });
    expect(result).toMatchObject({ ok: false, error: { code: "MCP_TOOL_CHANGED" } });
    expect(textOf((await session.call({ tool: "mcp_bad_ping", args: {} })).result)).toBe("pong");
  });

  it("refuses audio content and structured output that breaks its schema", async () => {
    const { session } = await open();
    const audio = await session.call({ tool: "mcp_bad_audio", args: {} });
    expect(audio.result).toMatchObject({
      ok: false,
      error: { code: "UNSUPPORTED_CONTENT", details: { types: ["audio"] } },
    });
    const bad = await session.call({ tool: "mcp_bad_bad-structured", args: {} });
    expect(bad.result).toMatchObject({ ok: false, error: { code: "TOOL_CONTRACT_VIOLATION" } });
  });

  it("leaves out tools whose schemas fall outside the subset, with diagnostics", async () => {
    const { mcp, session } = await open();
    expect(session.catalog.resolve("mcp_bad_loose-map")).toBeUndefined();
    expect(session.catalog.resolve("mcp_bad_evil-pattern")).toBeUndefined();
    expect(mcp.diagnostics.filter((d) => d.code === "MCP_SCHEMA_UNSUPPORTED")).toMatchInlineSnapshot(`
      [
        {
          "code": "MCP_SCHEMA_UNSUPPORTED",
          "message": "input schema at #/properties/meta: a free-form object cannot be closed without changing its meaning",
          "server": "bad",
          "tool": "loose-map",
        },
        {
          "code": "MCP_SCHEMA_UNSUPPORTED",
          "message": "input schema at #/properties/s/pattern: pattern repeats a group that itself contains a quantifier or alternation",
          "server": "bad",
          "tool": "evil-pattern",
        },
      ]
    `);
  });
});
