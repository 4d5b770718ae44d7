import Type from "typebox";
import { describe, expect, it } from "vitest";
import {
  createCatalog,
  createKernel,
  defineLayer,
  defineTool,
  fail,
  MemoryAuditSink,
  MemoryEventSink,
  ok,
  type PermissionAnswer,
  type PermissionBroker,
  type PermissionRequest,
  type ToolDefinition,
} from "./index.js";
import { echoTool, sleep, writeTool } from "./test-support/tools.js";

class ScriptedBroker implements PermissionBroker {
  readonly requests: PermissionRequest[] = [];
  constructor(private readonly answer: PermissionAnswer | "never") {}
  request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    this.requests.push(request);
    if (this.answer !== "never") return Promise.resolve(this.answer);
    return new Promise((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
    );
  }
}

/** Resolves once a tool body has started, so a test aborts a running call rather than racing a timer. */
interface Started {
  readonly promise: Promise<void>;
  mark(): void;
}
function startedSignal(): Started {
  let mark!: () => void;
  const promise = new Promise<void>((resolve) => {
    mark = resolve;
  });
  return { promise, mark };
}

const pluginTool = (): ToolDefinition =>
  echoTool({ name: "plugin.acme.lint", category: "plugin", risk: "medium", effects: ["process"] });

describe("dispatch order", () => {
  it("refuses an unknown tool", async () => {
    const session = createKernel().openSession({ catalog: createCatalog([echoTool()]) });
    const { result } = await session.call({ tool: "nope", args: {} });
    expect(result).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
  });

  it("applies the mode matrix before permission: Plan never prompts for a write, whatever the mode", async () => {
    const broker = new ScriptedBroker("allow-session");
    const kernel = createKernel({ broker });
    for (const mode of ["ask", "accept-edits", "auto"] as const) {
      const session = kernel.openSession({
        catalog: createCatalog([writeTool()]),
        mode: "plan",
        permission: { mode },
      });
      const { result, decision } = await session.call({ tool: "test_write", args: { path: "/w/a" } });
      expect(result).toMatchObject({ ok: false, error: { code: "DISABLED_IN_MODE" } });
      expect(decision).toMatchObject({ layer: "mode", rule: "mode.plan.write" });
    }
    expect(broker.requests).toHaveLength(0);
  });

  it("refuses plugin tools in Plan and Goal with PLUGIN_DISABLED_IN_PLAN and audits a contract-mode denial", async () => {
    const audit = new MemoryAuditSink();
    const kernel = createKernel({ audit, broker: new ScriptedBroker("allow-once") });
    for (const mode of ["plan", "goal"] as const) {
      const session = kernel.openSession({
        catalog: createCatalog([pluginTool()]),
        mode,
        permission: { mode: "auto" },
      });
      const { result } = await session.call({ tool: "plugin_acme_lint", args: { text: "x" } });
      expect(result).toMatchObject({ ok: false, error: { code: "PLUGIN_DISABLED_IN_PLAN" } });
    }
    expect(audit.records.map((r) => [r.mode, r.layer, r.rule, r.durationMs])).toEqual([
      ["plan", "mode", "mode.plan.plugin", 0],
      ["goal", "mode", "mode.goal.plugin", 0],
    ]);
  });

  it("refuses arguments over the byte bound before parsing them", async () => {
    const session = createKernel({ limits: { toolArgumentBytes: 1024 } }).openSession({
      catalog: createCatalog([echoTool()]),
    });
    const invalidButHuge = `{"text": "${"x".repeat(2000)}`;
    const { result } = await session.call({ tool: "test_echo", args: invalidButHuge });
    expect(result).toMatchObject({ ok: false, error: { code: "ARGUMENTS_TOO_LARGE" } });
    const small = await session.call({ tool: "test_echo", args: '{"text": ' });
    expect(small.result).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
  });

  it("validates against the closed schema and says which field is wrong", async () => {
    const session = createKernel().openSession({ catalog: createCatalog([echoTool()]) });
    const extra = await session.call({ tool: "test_echo", args: { text: "a", sneaky: true } });
    expect(extra.result).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
    expect(JSON.stringify(extra.result)).toContain("sneaky");
    const wrong = await session.call({ tool: "test_echo", args: { text: 5 } });
    expect(JSON.stringify(wrong.result)).toContain("/text");
    const good = await session.call({ tool: "test_echo", args: '{"text":"hi"}' });
    expect(good.result).toEqual({ ok: true, data: { echoed: "hi" } });
  });

  it("decides on the accesses the tool declares, naming the layer and rule", async () => {
    const layer = defineLayer({ id: "deployment", "fs.write": { allow: [{ id: "proj", path: "/w/proj" }] } });
    const session = createKernel().openSession({
      catalog: createCatalog([writeTool()]),
      layers: [layer],
      permission: { mode: "auto" },
    });
    const inside = await session.call({ tool: "test_write", args: { path: "/w/proj/a" } });
    expect(inside.result.ok).toBe(true);
    expect(inside.decision).toMatchObject({ layer: "deployment", rule: "proj" });
    const outside = await session.call({ tool: "test_write", args: { path: "/w/proj-evil/a" } });
    expect(outside.result).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", details: { layer: "deployment", rule: "default" } },
    });
  });

  it("hides tools that policy denies and explains why, and policy never adds a tool", () => {
    const layer = defineLayer({ id: "flags", effect: { deny: [{ id: "cli.no-write", match: "fs.write" }] } });
    const session = createKernel().openSession({
      catalog: createCatalog([echoTool(), writeTool()]),
      layers: [
        layer,
        defineLayer({
          id: "wide",
          tool: {
            allow: [
              { id: "all", match: "*" },
              { id: "ghost", match: "ghost.tool" },
            ],
          },
        }),
      ],
    });
    expect(session.visibleTools().map((t) => t.name)).toEqual(["test.echo"]);
    const hidden = session.visibility().find((v) => !v.visible);
    expect(hidden?.decision).toMatchObject({ layer: "flags", rule: "cli.no-write" });
    expect(session.catalog.resolve("ghost.tool")).toBeUndefined();
  });
});

describe("permission", () => {
  it("asks for a high-risk write under ask, and allow-session covers later calls of that tool in that session only", async () => {
    const broker = new ScriptedBroker("allow-session");
    const kernel = createKernel({ broker });
    const catalog = createCatalog([writeTool()]);
    const session = kernel.openSession({ catalog, permission: { mode: "ask" } });
    await session.call({ tool: "test_write", args: { path: "/w/a" } });
    await session.call({ tool: "test_write", args: { path: "/w/b" } });
    expect(broker.requests).toHaveLength(1);
    expect(broker.requests[0]).not.toHaveProperty("mode");
    const other = kernel.openSession({ catalog, permission: { mode: "ask" } });
    await other.call({ tool: "test_write", args: { path: "/w/c" } });
    expect(broker.requests).toHaveLength(2);
  });

  it("turns a deny answer into a TOOL_DENIED result the model can read", async () => {
    const session = createKernel({ broker: new ScriptedBroker("deny") }).openSession({
      catalog: createCatalog([writeTool()]),
    });
    const { result, audit } = await session.call({ tool: "test_write", args: { path: "/w/a" } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", message: "the user denied permission for this call" },
    });
    expect(audit).toMatchObject({ prompted: true, permissionAnswer: "deny", durationMs: 0 });
  });

  it("denies when nobody answers in time and audits the timeout", async () => {
    const session = createKernel({ broker: new ScriptedBroker("never") }).openSession({
      catalog: createCatalog([writeTool()]),
      permission: { mode: "ask", timeoutMs: 50 },
    });
    const { result, audit } = await session.call({ tool: "test_write", args: { path: "/w/a" } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect(audit.permissionAnswer).toBe("timeout");
    expect(audit.permissionWaitMs).toBeGreaterThanOrEqual(40);
  });

  it("denies outstanding requests when the turn is cancelled", async () => {
    const broker = new ScriptedBroker("never");
    const session = createKernel({ broker }).openSession({ catalog: createCatalog([writeTool()]) });
    const pending = session.call({ tool: "test_write", args: { path: "/w/a" } });
    await expect.poll(() => broker.requests.length).toBe(1);
    session.cancelTurn();
    const { result, audit } = await pending;
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect(audit.permissionAnswer).toBe("cancelled");
  });

  it("fails closed without a broker", async () => {
    const session = createKernel().openSession({
      catalog: createCatalog([writeTool()]),
      permission: { mode: "ask" },
    });
    const { result, audit } = await session.call({ tool: "test_write", args: { path: "/w/a" } });
    expect(result.ok).toBe(false);
    expect(audit.permissionAnswer).toBe("no-broker");
  });

  it("the read-only profile denies writes and processes unless the effect is granted", async () => {
    const process = echoTool({ name: "test.proc", risk: "high", effects: ["process"], category: "process" });
    const catalog = createCatalog([echoTool(), writeTool(), process]);
    const session = createKernel().openSession({ catalog, permission: { mode: "read-only" } });
    expect((await session.call({ tool: "test_echo", args: { text: "x" } })).result.ok).toBe(true);
    expect((await session.call({ tool: "test_write", args: { path: "/w/a" } })).decision.rule).toBe(
      "permission.read-only",
    );
    expect((await session.call({ tool: "test_proc", args: { text: "x" } })).result.ok).toBe(false);
    const granted = createKernel().openSession({
      catalog,
      permission: { mode: "read-only", grants: ["process"] },
    });
    expect((await granted.call({ tool: "test_proc", args: { text: "x" } })).result.ok).toBe(true);
  });

  it("a dry run reports allow, ask or deny with layer and rule, and runs nothing", async () => {
    let ran = 0;
    const counting = writeTool({
      execute: async () => {
        ran++;
        return ok(null);
      },
    });
    const broker = new ScriptedBroker("allow-once");
    const layer = defineLayer({ id: "deployment", "fs.write": { deny: [{ id: "no-etc", path: "/etc" }] } });
    const session = createKernel({ broker }).openSession({
      catalog: createCatalog([counting]),
      layers: [layer],
    });
    expect(await session.dryRun({ tool: "test_write", args: { path: "/w/a" } })).toMatchObject({
      decision: "ask",
    });
    expect(await session.dryRun({ tool: "test_write", args: { path: "/etc/passwd" } })).toMatchObject({
      decision: "deny",
      layer: "deployment",
      rule: "no-etc",
    });
    session.setPermission({ mode: "auto" });
    expect(await session.dryRun({ tool: "test_write", args: { path: "/w/a" } })).toMatchObject({
      decision: "allow",
    });
    expect(ran).toBe(0);
    expect(broker.requests).toHaveLength(0);
  });
});

describe("budgets and limits", () => {
  it("a zero tool-call count disables tools", async () => {
    const session = createKernel({ limits: { toolCalls: 0 } }).openSession({
      catalog: createCatalog([echoTool()]),
    });
    expect((await session.call({ tool: "test_echo", args: { text: "x" } })).result).toMatchObject({
      ok: false,
      error: { code: "BUDGET_EXHAUSTED" },
    });
  });

  it("never starts a tool when no model call remains to read its result", async () => {
    let ran = false;
    const tool = echoTool({
      execute: async () => {
        ran = true;
        return ok(null);
      },
    });
    const session = createKernel({ limits: { modelCalls: 1 } }).openSession({
      catalog: createCatalog([tool]),
    });
    expect(session.budget.takeModelCall().ok).toBe(true);
    const { result } = await session.call({ tool: "test_echo", args: { text: "x" } });
    expect(result).toMatchObject({ ok: false, error: { code: "BUDGET_EXHAUSTED" } });
    expect(ran).toBe(false);
  });

  it("children share the root's budget", async () => {
    const kernel = createKernel({ limits: { toolCalls: 2 } });
    const catalog = createCatalog([echoTool()]);
    const root = kernel.openSession({ catalog });
    const child = kernel.openSession({ catalog, parent: root, requester: "child-1" });
    await root.call({ tool: "test_echo", args: { text: "a" } });
    await child.call({ tool: "test_echo", args: { text: "b" } });
    expect((await child.call({ tool: "test_echo", args: { text: "c" } })).result.ok).toBe(false);
    expect(root.budget.toolCallsUsed).toBe(2);
  });

  it("a child's layers narrow its parent's and cannot widen them", async () => {
    const kernel = createKernel();
    const catalog = createCatalog([echoTool(), writeTool()]);
    const root = kernel.openSession({
      catalog,
      layers: [defineLayer({ id: "root", tool: { deny: [{ id: "no-write", match: "test.write" }] } })],
      permission: { mode: "auto" },
    });
    const child = kernel.openSession({
      catalog,
      parent: root,
      layers: [defineLayer({ id: "child", tool: { allow: [{ id: "all", match: "*" }] } })],
    });
    expect(child.visibleTools().map((t) => t.name)).toEqual(["test.echo"]);
  });
});

describe("cancellation and timeouts", () => {
  const slow = (committed: boolean, started: Started) =>
    echoTool({
      execute: async (_args, ctx) => {
        started.mark();
        await sleep(5_000, ctx.signal).catch(() => undefined);
        return committed ? ok("done", { committed: true }) : ok("late");
      },
    });

  it("a cancelled call returns TOOL_CANCELLED", async () => {
    const started = startedSignal();
    const session = createKernel().openSession({ catalog: createCatalog([slow(false, started)]) });
    const controller = new AbortController();
    const pending = session.call({ tool: "test_echo", args: { text: "x" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).result).toMatchObject({ ok: false, error: { code: "TOOL_CANCELLED" } });
  });

  it("a result that committed keeps committed: true even when cancellation arrives", async () => {
    const started = startedSignal();
    const session = createKernel().openSession({ catalog: createCatalog([slow(true, started)]) });
    const controller = new AbortController();
    const pending = session.call({ tool: "test_echo", args: { text: "x" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).result).toEqual({ ok: true, data: "done", committed: true });
  });

  it("the run deadline stops a running tool with TOOL_TIMEOUT", async () => {
    const session = createKernel({ limits: { runDeadlineMs: 50 } }).openSession({
      catalog: createCatalog([slow(false, startedSignal())]),
    });
    expect((await session.call({ tool: "test_echo", args: { text: "x" } })).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_TIMEOUT" },
    });
  });

  it("a tool that ignores its signal is reported after the cleanup allowance, not waited on forever", async () => {
    const started = startedSignal();
    const stubborn = echoTool({
      execute: () => {
        started.mark();
        return new Promise(() => undefined);
      },
    });
    const session = createKernel({ cleanupGraceMs: 30 }).openSession({ catalog: createCatalog([stubborn]) });
    const controller = new AbortController();
    const pending = session.call({ tool: "test_echo", args: { text: "x" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).result).toMatchObject({ ok: false, error: { code: "TOOL_CLEANUP_FAILED" } });
  });

  it("a tool that throws becomes TOOL_FAILED, never a crashed host", async () => {
    const thrower = echoTool({
      execute: async () => {
        throw new Error("boom");
      },
    });
    const session = createKernel().openSession({ catalog: createCatalog([thrower]) });
    expect((await session.call({ tool: "test_echo", args: { text: "x" } })).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_FAILED", message: "test_echo failed: boom" },
    });
  });

  it("output that breaks the declared output schema is a contract violation", async () => {
    const typed = echoTool({
      outputSchema: Type.Object({ n: Type.Number() }, { additionalProperties: false }),
      execute: async () => ok({ n: "not a number" }),
    });
    const session = createKernel().openSession({ catalog: createCatalog([typed]) });
    expect((await session.call({ tool: "test_echo", args: { text: "x" } })).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_CONTRACT_VIOLATION" },
    });
  });
});

describe("mutation ordering", () => {
  function tracker() {
    let active = 0;
    let maxActive = 0;
    const run = async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await sleep(15);
      active--;
      return ok(null);
    };
    return { run, max: () => maxActive };
  }

  it("never runs two mutations of one session at once, even when reads may run in parallel", async () => {
    const writes = tracker();
    const session = createKernel().openSession({
      catalog: createCatalog([writeTool({ execute: writes.run })]),
      permission: { mode: "auto" },
      concurrency: "parallel-reads",
    });
    await Promise.all(
      [1, 2, 3, 4].map((i) => session.call({ tool: "test_write", args: { path: `/w/${i}` } })),
    );
    expect(writes.max()).toBe(1);
  });

  it("holds the mutation lock until a tool reported after the cleanup allowance really settles", async () => {
    const started = startedSignal();
    let finishFirst!: () => void;
    const order: string[] = [];
    const stubbornWrite = writeTool({
      execute: (args) => {
        const { path } = args as { path: string };
        order.push(`start ${path}`);
        if (path !== "/w/first") return Promise.resolve(ok(null));
        started.mark();
        // Ignores its signal: keeps "writing" until the test lets it finish.
        return new Promise((resolve) => {
          finishFirst = () => {
            order.push("first settled");
            resolve(ok(null));
          };
        });
      },
    });
    const session = createKernel({ cleanupGraceMs: 20 }).openSession({
      catalog: createCatalog([stubbornWrite]),
      permission: { mode: "auto" },
      concurrency: "parallel-reads",
    });
    const controller = new AbortController();
    const first = session.call({ tool: "test_write", args: { path: "/w/first" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await first).result).toMatchObject({ ok: false, error: { code: "TOOL_CLEANUP_FAILED" } });
    const second = session.call({ tool: "test_write", args: { path: "/w/second" } });
    await sleep(30);
    expect(order).toEqual(["start /w/first"]);
    finishFirst();
    expect((await second).result.ok).toBe(true);
    expect(order).toEqual(["start /w/first", "first settled", "start /w/second"]);
  });

  it("runs reads concurrently only when the host asks for it", async () => {
    const sequential = tracker();
    const parallel = tracker();
    const seq = createKernel().openSession({
      catalog: createCatalog([echoTool({ execute: sequential.run })]),
    });
    const par = createKernel().openSession({
      catalog: createCatalog([echoTool({ execute: parallel.run })]),
      concurrency: "parallel-reads",
    });
    await Promise.all([1, 2, 3].map(() => seq.call({ tool: "test_echo", args: { text: "x" } })));
    await Promise.all([1, 2, 3].map(() => par.call({ tool: "test_echo", args: { text: "x" } })));
    expect(sequential.max()).toBe(1);
    expect(parallel.max()).toBe(3);
  });
});

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

describe("accesses", () => {
  it("lets a tool refuse a call while planning, before any permission prompt", async () => {
    const broker = new ScriptedBroker("allow-once");
    const refusing = writeTool({ accesses: () => fail("OUTSIDE_WORKSPACE", "path escapes the workspace") });
    const session = createKernel({ broker }).openSession({ catalog: createCatalog([refusing]) });
    const { result } = await session.call({ tool: "test_write", args: { path: "../x" } });
    expect(result).toMatchObject({ ok: false, error: { code: "OUTSIDE_WORKSPACE" } });
    expect(broker.requests).toHaveLength(0);
  });

  it("lets a tool re-check policy during execution with ctx.authorize", async () => {
    const rechecking = defineTool({
      ...writeTool(),
      inputSchema: Type.Object({ path: Type.String() }, { additionalProperties: false }),
      execute: async (args, ctx) => {
        const d = ctx.authorize([{ dimension: "fs.write", path: `${args.path}/late` }]);
        return d.verdict === "allow" ? ok("installed") : fail("TOOL_DENIED", d.reason);
      },
    });
    const layer = defineLayer({ id: "d", "fs.write": { deny: [{ id: "late", path: "/w/a/late" }] } });
    const session = createKernel().openSession({
      catalog: createCatalog([rechecking]),
      layers: [layer],
      permission: { mode: "auto" },
    });
    expect((await session.call({ tool: "test_write", args: { path: "/w/a" } })).result.ok).toBe(false);
  });
});

describe("narrowing a running session", () => {
  it("adds an innermost layer that can only remove tools", async () => {
    const session = createKernel().openSession({
      catalog: createCatalog([echoTool(), writeTool()]),
      permission: { mode: "auto" },
    });
    expect(session.visibleTools()).toHaveLength(2);
    session.narrow(
      defineLayer({ id: "skill.allowed-tools", tool: { allow: [{ id: "echo-only", match: "test.echo" }] } }),
    );
    expect(session.visibleTools().map((t) => t.name)).toEqual(["test.echo"]);
    const { decision } = await session.call({ tool: "test_write", args: { path: "/w/a" } });
    expect(decision).toMatchObject({ verdict: "deny", layer: "skill.allowed-tools" });
    session.narrow(defineLayer({ id: "wide", tool: { allow: [{ id: "all", match: "*" }] } }));
    expect(session.visibleTools().map((t) => t.name)).toEqual(["test.echo"]);
  });
});

describe("progress and cancellation details", () => {
  it("gives the calling host the progress itself, while native events stay content-free", async () => {
    const events = new MemoryEventSink();
    const streaming = echoTool({
      execute: async (_args, ctx) => {
        ctx.progress({ kind: "stdout", data: "line 1\n" });
        return ok(null);
      },
    });
    const session = createKernel({ events }).openSession({ catalog: createCatalog([streaming]) });
    const seen: unknown[] = [];
    await session.call({ tool: "test_echo", args: { text: "x" }, onProgress: (p) => seen.push(p) });
    expect(seen).toEqual([{ kind: "stdout", data: "line 1\n" }]);
    expect(JSON.stringify(events.events)).not.toContain("line 1");
  });

  it("keeps what the tool reported about its state when a call is cancelled", async () => {
    const started = startedSignal();
    const remote = echoTool({
      execute: async (_args, ctx) => {
        started.mark();
        await sleep(5_000, ctx.signal).catch(() => undefined);
        return fail("TOOL_FAILED", "disconnected", { remoteCompletion: "unknown" });
      },
    });
    const session = createKernel().openSession({ catalog: createCatalog([remote]) });
    const controller = new AbortController();
    const pending = session.call({ tool: "test_echo", args: { text: "x" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_CANCELLED", details: { remoteCompletion: "unknown" } },
    });
  });

  it("gives each call its own signal, so listeners left by a tool do not accumulate", async () => {
    const signals = new Set<AbortSignal>();
    const leaky = echoTool({
      execute: async (_args, ctx) => {
        signals.add(ctx.signal);
        ctx.signal.addEventListener("abort", () => undefined);
        return ok(null);
      },
    });
    const session = createKernel().openSession({ catalog: createCatalog([leaky]) });
    for (let i = 0; i < 3; i++) await session.call({ tool: "test_echo", args: { text: "x" } });
    expect(signals.size).toBe(3);
  });
});

describe("tools that break their contract", () => {
  it("turn results that are not JSON and malformed accesses into refusals, never host crashes", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    const cases: ToolDefinition[] = [
      echoTool({ name: "bad.bigint", execute: async () => ({ ok: true, data: 10n as unknown as null }) }),
      echoTool({ name: "bad.cycle", execute: async () => ({ ok: true, data: cyclic as never }) }),
      echoTool({ name: "bad.access", accesses: () => [{ dimension: "fs.read" } as never] }),
      echoTool({ name: "bad.plan", accesses: () => "nonsense" as never }),
    ];
    const session = createKernel().openSession({ catalog: createCatalog(cases) });
    for (const tool of ["bad_bigint", "bad_cycle", "bad_access", "bad_plan"]) {
      const { result } = await session.call({ tool, args: { text: "x" } });
      expect(result, tool).toMatchObject({ ok: false, error: { code: "TOOL_CONTRACT_VIOLATION" } });
    }
  });
});

describe("delegates and refusals", () => {
  it("shares allow-session grants between a session and its delegates, but not with a child that has its own", async () => {
    const broker = new ScriptedBroker("allow-session");
    const kernel = createKernel({ broker });
    const catalog = createCatalog([writeTool()]);
    const root = kernel.openSession({ catalog, permission: { mode: "ask" } });
    const delegate = kernel.openSession({ catalog, parent: root, requester: "task.writer" });
    await delegate.call({ tool: "test_write", args: { path: "/w/a" } });
    expect(broker.requests.map((r) => r.requester)).toEqual(["task.writer"]);
    await root.call({ tool: "test_write", args: { path: "/w/b" } });
    expect(broker.requests).toHaveLength(1);
    const child = kernel.openSession({ catalog, parent: root, grants: "own", requester: "child-1" });
    await child.call({ tool: "test_write", args: { path: "/w/c" } });
    expect(broker.requests).toHaveLength(2);
  });

  it("audits a call the host refused without dispatching it", async () => {
    const audit = new MemoryAuditSink();
    const session = createKernel({ audit }).openSession({ catalog: createCatalog([echoTool()]) });
    const { result } = await session.recordRefusal(
      { tool: "test_echo", args: { text: "x" }, callId: "c9" },
      {
        code: "TOOL_NOT_LOADED",
        message: "load it with ToolSearch first",
        rule: "agent.deferred-not-loaded",
      },
    );
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_NOT_LOADED" } });
    expect(audit.records[0]).toMatchObject({
      callId: "c9",
      tool: "test.echo",
      decision: "deny",
      layer: "host",
      rule: "agent.deferred-not-loaded",
      durationMs: 0,
    });
  });
});

describe("the tool context", () => {
  it("can be destructured", async () => {
    const destructuring = echoTool({
      execute: async (_args, { progress, state, authorize, signal }) => {
        progress({ kind: "note", data: "x" });
        const counter = state("counter", () => ({ n: 0 }));
        counter.n++;
        return ok({
          n: counter.n,
          verdict: authorize([{ dimension: "tool", value: "x" }]).verdict,
          aborted: signal.aborted,
        });
      },
    });
    const session = createKernel().openSession({ catalog: createCatalog([destructuring]) });
    await session.call({ tool: "test_echo", args: { text: "a" } });
    const { result } = await session.call({ tool: "test_echo", args: { text: "b" } });
    expect(result).toEqual({ ok: true, data: { n: 2, verdict: "allow", aborted: false } });
  });
});

describe("the tool context, spread", () => {
  it("keeps every member when a wrapper spreads it", async () => {
    const spreading = echoTool({
      execute: async (_args, ctx) => {
        const copy = { ...ctx };
        const counter = copy.state("n", () => ({ n: 0 }));
        counter.n++;
        copy.progress({ kind: "note", data: 1 });
        return ok({ n: counter.n, callId: copy.callId, aborted: copy.signal.aborted });
      },
    });
    const session = createKernel().openSession({ catalog: createCatalog([spreading]) });
    const { result } = await session.call({ tool: "test_echo", args: { text: "a" }, callId: "c1" });
    expect(result).toEqual({ ok: true, data: { n: 1, callId: "c1", aborted: false } });
  });
});
