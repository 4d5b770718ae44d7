import fc from "fast-check";
import Type from "typebox";
import { describe, expect, it } from "vitest";
import {
  type AuthorityLayer,
  type CallOutcome,
  createCatalog,
  createKernel,
  type DryRunDecision,
  defineLayer,
  defineTool,
  fail,
  type Limits,
  MemoryAuditSink,
  type OperatingMode,
  ok,
  type PermissionAnswer,
  type PermissionBroker,
  type PermissionProfile,
  type ToolDefinition,
} from "./index.js";
import { echoTool } from "./test-support/tools.js";

/** A broker that always gives one answer and counts how often it was asked. */
class FixedBroker implements PermissionBroker {
  asked = 0;
  constructor(private readonly answer: PermissionAnswer) {}
  request(): Promise<PermissionAnswer> {
    this.asked++;
    return Promise.resolve(this.answer);
  }
}

const Root = Type.Union([Type.Literal("workspace"), Type.Literal("scratch"), Type.Literal("external")], {
  description: "Which root the path is under.",
});

/** A write whose root comes from its arguments, so scratch and external paths are generated too. */
const rootedWrite = defineTool({
  name: "test.write",
  description: "Pretends to write a file.",
  summary: "Write",
  inputSchema: Type.Object(
    { path: Type.String({ description: "Absolute path." }), root: Root },
    { additionalProperties: false },
  ),
  risk: "high",
  effects: ["fs.write"],
  category: "write",
  mutates: true,
  accesses: (args) =>
    args.path.includes("..")
      ? fail("OUTSIDE_WORKSPACE", "the path escapes its root")
      : [{ dimension: "fs.write", path: args.path, root: args.root }],
  execute: async (args) => ok({ wrote: args.path }, { committed: true }),
});

const fetchTool = defineTool({
  name: "test.fetch",
  description: "Pretends to fetch a URL.",
  summary: "Fetch",
  inputSchema: Type.Object({ url: Type.String({ description: "URL." }) }, { additionalProperties: false }),
  risk: "medium",
  effects: ["net"],
  category: "external",
  mutates: false,
  accesses: (args) => [{ dimension: "net", url: args.url }],
  execute: async (args) => ok(args.url),
});

const TOOLS: ToolDefinition[] = [
  echoTool(),
  rootedWrite,
  fetchTool,
  echoTool({ name: "test.proc", risk: "high", effects: ["process"], category: "process" }),
  echoTool({ name: "plugin.acme.lint", risk: "low", effects: ["process"], category: "plugin" }),
  echoTool({ name: "test.submit", category: "plan-submit" }),
];

const LAYERS: AuthorityLayer[] = [
  defineLayer({ id: "deployment", "fs.write": { deny: [{ id: "no-etc", path: "/etc" }] } }),
  defineLayer({ id: "project", "fs.write": { allow: [{ id: "w", path: "/w" }] } }),
  defineLayer({ id: "flags", effect: { deny: [{ id: "no-process", match: "process" }] } }),
  defineLayer({ id: "session", tool: { allow: [{ id: "echo-write", match: "test.*" }] } }),
  defineLayer({ id: "net", net: { allow: [{ id: "example", prefix: "https://example.com/" }] } }),
];

const path = fc.constantFrom("/w/a.txt", "/etc/passwd", "/tmp/s/x", "/w/../etc/x", "/home/u/notes");
const request = fc.oneof(
  fc.record({
    tool: fc.constant("test_echo"),
    args: fc.constantFrom<unknown>({ text: "x" }, { text: 1 }, "{"),
  }),
  fc.record({
    tool: fc.constantFrom("test_write", "test.write"),
    args: fc.oneof(
      fc.record({ path, root: fc.constantFrom("workspace", "scratch", "external") }),
      fc.constant<unknown>({ path: "/w/a", root: "workspace", extra: true }),
    ),
  }),
  fc.record({
    tool: fc.constant("test_fetch"),
    args: fc.record({ url: fc.constantFrom("https://example.com/a", "https://evil.test/") }),
  }),
  fc.record({
    tool: fc.constantFrom("test_proc", "plugin_acme_lint", "test_submit"),
    args: fc.constant<unknown>({ text: "x" }),
  }),
  fc.record({ tool: fc.constant("nope"), args: fc.constant<unknown>({}) }),
);

const scenario = fc.record({
  mode: fc.constantFrom<OperatingMode>("agent", "plan", "goal"),
  permission: fc.constantFrom<PermissionProfile>(
    { mode: "ask" },
    { mode: "accept-edits" },
    { mode: "auto" },
    { mode: "read-only" },
    { mode: "read-only", grants: ["process"] },
  ),
  broker: fc.constantFrom<PermissionAnswer | "none">("none", "allow-once", "allow-session", "deny"),
  layers: fc.subarray(LAYERS),
  limits: fc.record({
    toolCalls: fc.constantFrom<Limits["toolCalls"]>(null, 0, 1, 2),
    modelCalls: fc.constantFrom<Limits["modelCalls"]>(null, 0, 1, 4),
    toolArgumentBytes: fc.constantFrom(24, 1024),
  }),
  modelCallsSpent: fc.integer({ min: 0, max: 1 }),
  calls: fc.array(request, { minLength: 1, maxLength: 3 }),
});

/** What a real call did, in the dry run's terms: prompted, refused before running, or ran. */
function verdictOf(outcome: CallOutcome): DryRunDecision["decision"] {
  if (outcome.audit.prompted) return "ask";
  return outcome.audit.decision === "deny" ? "deny" : "allow";
}

describe("a dry run decides with the call's own decision function", () => {
  it("gives the verdict, code, layer and rule the call then acts on, for generated calls and sessions", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const broker = s.broker === "none" ? undefined : new FixedBroker(s.broker);
        const session = createKernel({ limits: s.limits, ...(broker ? { broker } : {}) }).openSession({
          catalog: createCatalog(TOOLS),
          layers: s.layers,
          mode: s.mode,
          permission: s.permission,
        });
        for (let i = 0; i < s.modelCallsSpent; i++) session.budget.takeModelCall();
        for (const call of s.calls) {
          const dry = await session.dryRun(call);
          const real = await session.call(call);
          const { decision, result } = real;
          expect(dry.decision).toBe(verdictOf(real));
          if (dry.decision === "deny") {
            expect(result.ok).toBe(false);
            expect(dry).toEqual({
              decision: "deny",
              layer: decision.layer,
              rule: decision.rule,
              reason: decision.reason,
              code: result.ok ? undefined : result.error.code,
            });
          } else if (dry.decision === "allow") {
            expect(dry).toEqual({
              decision: "allow",
              layer: decision.layer,
              rule: decision.rule,
              reason: decision.reason,
            });
          } else {
            expect(dry).toMatchObject({ layer: "permission", rule: decision.rule });
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it("says BUDGET_EXHAUSTED when tool calls are disabled, as the call does (it used to say allow)", async () => {
    const session = createKernel({ limits: { toolCalls: 0 } }).openSession({
      catalog: createCatalog([echoTool()]),
    });
    const request = { tool: "test_echo", args: { text: "x" } };
    expect(await session.dryRun(request)).toMatchObject({
      decision: "deny",
      layer: "limits",
      rule: "limits.budget",
      code: "BUDGET_EXHAUSTED",
    });
    expect((await session.call(request)).result).toMatchObject({ error: { code: "BUDGET_EXHAUSTED" } });
  });

  it("says deny when a prompt is needed and no broker exists, as the call does (it used to say ask)", async () => {
    const audit = new MemoryAuditSink();
    const session = createKernel({ audit }).openSession({
      catalog: createCatalog([rootedWrite]),
      permission: { mode: "ask" },
    });
    const request = { tool: "test_write", args: { path: "/w/a", root: "workspace" } };
    expect(await session.dryRun(request)).toEqual({
      decision: "deny",
      layer: "permission",
      rule: "permission.ask.high",
      reason: "no permission broker is available, so the request fails closed",
      code: "TOOL_DENIED",
    });
    const { decision } = await session.call(request);
    expect(decision).toMatchObject({ verdict: "deny", layer: "permission", rule: "permission.ask.high" });
    expect(audit.records.map((r) => r.permissionAnswer)).toEqual(["no-broker"]);
  });

  it("spends nothing: neither the budget nor a prompt, and a call that cannot run asks nobody", async () => {
    const broker = new FixedBroker("allow-once");
    const session = createKernel({ broker, limits: { toolCalls: 1 } }).openSession({
      catalog: createCatalog([rootedWrite]),
      permission: { mode: "ask" },
    });
    const request = { tool: "test_write", args: { path: "/w/a", root: "workspace" } };
    expect((await session.dryRun(request)).decision).toBe("ask");
    expect((await session.dryRun(request)).decision).toBe("ask");
    expect(broker.asked).toBe(0);
    expect((await session.call(request)).result.ok).toBe(true);
    expect(broker.asked).toBe(1);
    expect(await session.dryRun(request)).toMatchObject({ decision: "deny", code: "BUDGET_EXHAUSTED" });
    expect((await session.call(request)).result).toMatchObject({ error: { code: "BUDGET_EXHAUSTED" } });
    expect(broker.asked).toBe(1);
  });
});
