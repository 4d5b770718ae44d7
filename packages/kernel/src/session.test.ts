import Type from "typebox";
import { describe, expect, it } from "vitest";
import {
  createCatalog,
  createKernel,
  defineLayer,
  defineTool,
  fail,
  MemoryAuditSink,
  ok,
  type ToolDefinition,
} from "./index.js";
import { pluginTool, ScriptedBroker } from "./test-support/session.js";
import { echoTool, writeTool } from "./test-support/tools.js";

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
