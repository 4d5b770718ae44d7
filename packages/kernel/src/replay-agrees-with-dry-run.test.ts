import fc from "fast-check";
import Type from "typebox";
import { describe, expect, it } from "vitest";
import {
  type AuthorityLayer,
  createCatalog,
  createKernel,
  defineLayer,
  defineTool,
  fail,
  MemoryAuditSink,
  type OperatingMode,
  ok,
  type PermissionAnswer,
  type PermissionBroker,
  type PermissionProfile,
  redecide,
  type ToolDefinition,
} from "./index.js";
import { echoTool } from "./test-support/tools.js";

class FixedBroker implements PermissionBroker {
  constructor(private readonly answer: PermissionAnswer) {}
  request(): Promise<PermissionAnswer> {
    return Promise.resolve(this.answer);
  }
}

const Root = Type.Union([Type.Literal("workspace"), Type.Literal("scratch"), Type.Literal("external")], {
  description: "Which root the path is under.",
});

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
  execute: async (args) => ok({ wrote: args.path }),
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
];

const LAYERS: AuthorityLayer[] = [
  defineLayer({ id: "deployment", "fs.write": { deny: [{ id: "no-etc", path: "/etc" }] } }),
  defineLayer({ id: "project", "fs.write": { allow: [{ id: "w", path: "/w" }] } }),
  defineLayer({ id: "flags", effect: { deny: [{ id: "no-process", match: "process" }] } }),
  defineLayer({ id: "session", tool: { allow: [{ id: "tests", match: "test.*" }] } }),
  defineLayer({ id: "net", net: { allow: [{ id: "example", prefix: "https://example.com/" }] } }),
];

const path = fc.constantFrom("/w/a.txt", "/etc/passwd", "/tmp/s/x", "/w/../etc/x");
const request = fc.oneof(
  fc.record({ tool: fc.constant("test_echo"), args: fc.constantFrom<unknown>({ text: "x" }, { text: 1 }) }),
  fc.record({
    tool: fc.constant("test_write"),
    args: fc.record({ path, root: fc.constantFrom("workspace", "scratch", "external") }),
  }),
  fc.record({
    tool: fc.constant("test_fetch"),
    args: fc.record({ url: fc.constantFrom("https://example.com/a", "https://evil.test/") }),
  }),
  fc.record({
    tool: fc.constantFrom("test_proc", "plugin_acme_lint"),
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
  ),
  recordedUnder: fc.subarray(LAYERS),
  replayedUnder: fc.subarray(LAYERS),
  calls: fc.array(request, { minLength: 1, maxLength: 3 }),
});

describe("a what-if replay decides with the call's own decision pieces", () => {
  it("re-decides a recorded call as a dry run under the new layers decides it", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const audit = new MemoryAuditSink();
        const open = (layers: AuthorityLayer[], sink?: MemoryAuditSink) =>
          createKernel({
            broker: new FixedBroker("allow-once"),
            ...(sink ? { audit: sink } : {}),
          }).openSession({
            catalog: createCatalog(TOOLS),
            layers,
            mode: s.mode,
            permission: s.permission,
          });
        const recorded = open(s.recordedUnder, audit);
        for (const call of s.calls) await recorded.call(call);
        const now = open(s.replayedUnder);
        for (const [i, record] of audit.records.entries()) {
          const replay = redecide(record, s.replayedUnder);
          const dry = await now.dryRun(s.calls[i] as (typeof s.calls)[number]);
          if (replay.verdict === "undetermined") {
            // Refused before it declared accesses, and the new layers would admit it.
            expect(record.accesses).toBeUndefined();
            continue;
          }
          expect({ verdict: replay.verdict, layer: replay.layer, rule: replay.rule }).toEqual({
            verdict: dry.decision,
            layer: dry.layer,
            rule: dry.rule,
          });
          if (replay.verdict === "deny") expect(replay.code).toBe(dry.code);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("gives back the recorded decision when nothing changed", async () => {
    const audit = new MemoryAuditSink();
    const session = createKernel({ audit }).openSession({
      catalog: createCatalog(TOOLS),
      layers: LAYERS,
      permission: { mode: "auto" },
    });
    await session.call({ tool: "test_write", args: { path: "/etc/passwd", root: "workspace" } });
    await session.call({ tool: "test_write", args: { path: "/w/a.txt", root: "workspace" } });
    expect(audit.records.map((r) => [r.decision, r.layer, r.rule])).toEqual(
      audit.records.map((r) => {
        const again = redecide(r, LAYERS);
        return [again.verdict, "layer" in again ? again.layer : "", "rule" in again ? again.rule : ""];
      }),
    );
  });
});
