import {
  createCatalog,
  createKernel,
  defineLayer,
  MemoryAuditSink,
  type ToolDefinition,
} from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { loadPlugins } from "./index.js";
import { makeDistribution } from "./test-support/distribution.js";

const TOOLS = ["agent.tool.register"];

async function sessionFor(
  fixture: string,
  options: { mode?: "agent" | "plan" | "goal"; timeoutMs?: number } = {},
) {
  const dist = makeDistribution([fixture]);
  const loaded = await loadPlugins(
    [
      {
        name: fixture,
        package: dist.packages[fixture] ?? "",
        grants: TOOLS,
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      },
    ],
    { resolveFrom: dist.root },
  );
  expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  const audit = new MemoryAuditSink();
  const session = createKernel({ audit, cleanupGraceMs: 200 }).openSession({
    catalog: createCatalog(loaded.tools),
    mode: options.mode ?? "agent",
    permission: { mode: "auto" },
  });
  return { session, audit, tools: loaded.tools };
}

describe("plugin tools through the kernel", () => {
  it("runs a plugin tool through the full pipeline and audits it", async () => {
    const { session, audit } = await sessionFor("valid");
    const { result } = await session.call({ tool: "plugin_acme_echo", args: { text: "hi" } });
    expect(result).toEqual({ ok: true, data: { echoed: "hi" } });
    expect(audit.records).toMatchObject([
      { tool: "plugin.acme.echo", providerName: "plugin_acme_echo", ok: true },
    ]);
  });

  it("refuses plugin tools in Plan and Goal with PLUGIN_DISABLED_IN_PLAN, audited as a mode denial", async () => {
    for (const mode of ["plan", "goal"] as const) {
      const { session, audit } = await sessionFor("valid", { mode });
      const { result } = await session.call({ tool: "plugin.acme.echo", args: { text: "hi" } });
      expect(result).toMatchObject({ ok: false, error: { code: "PLUGIN_DISABLED_IN_PLAN" } });
      expect(audit.records.map((r) => [r.mode, r.decision, r.layer, r.rule, r.durationMs])).toEqual([
        [mode, "deny", "mode", `mode.${mode}.plugin`, 0],
      ]);
      expect(session.visibleTools()).toEqual([]);
    }
  });

  it("asks permission for a medium-risk plugin tool unless the mode is auto", async () => {
    const dist = makeDistribution(["risk-defaulted"]);
    const { tools } = await loadPlugins([{ name: "r", package: "fixture-risk-defaulted", grants: TOOLS }], {
      resolveFrom: dist.root,
    });
    const session = createKernel().openSession({
      catalog: createCatalog(tools),
      permission: { mode: "ask" },
    });
    const { result, decision } = await session.call({ tool: "plugin_acme_echo", args: { text: "x" } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect(decision).toMatchObject({ layer: "permission", rule: "permission.ask.medium" });
  });

  it("lets authority layers deny plugin tools by native name", async () => {
    const dist = makeDistribution(["valid"]);
    const { tools } = await loadPlugins([{ name: "v", package: "fixture-valid", grants: TOOLS }], {
      resolveFrom: dist.root,
    });
    const layer = defineLayer({
      id: "deployment",
      tool: { deny: [{ id: "no-plugins", match: "plugin.*" }] },
    });
    const session = createKernel().openSession({
      catalog: createCatalog(tools),
      layers: [layer],
      permission: { mode: "auto" },
    });
    const { decision } = await session.call({ tool: "plugin_acme_echo", args: { text: "x" } });
    expect(decision).toMatchObject({ verdict: "deny", layer: "deployment", rule: "no-plugins" });
  });

  it.each([
    ["throws", "TOOL_FAILED", "plugin flaky tool run failed: kaboom at call time"],
    ["throwsSync", "TOOL_FAILED", "synchronous kaboom"],
    ["hostFault", "TOOL_FAILED", "a plugin posing as a host fault"],
    ["malformed", "TOOL_FAILED", "plugin flaky tool run returned a malformed result"],
    ["bigint", "TOOL_FAILED", "returned data that is not JSON-serializable"],
    ["cyclic", "TOOL_FAILED", "returned data that is not JSON-serializable"],
    ["failure", "NOT_FOUND", "nothing there"],
  ])("turns a plugin that %s at call time into %s, never a crashed host", async (mode, code, message) => {
    const { session, audit } = await sessionFor("call-failures");
    const { result } = await session.call({ tool: "plugin_flaky_run", args: { mode } });
    expect(result).toMatchObject({ ok: false, error: { code, message: expect.stringContaining(message) } });
    expect(audit.records).toMatchObject([{ ok: false, errorCode: code }]);
  });

  it("keeps only well-formed audit notes from a plugin result", async () => {
    const { session, audit } = await sessionFor("call-failures");
    const { result } = await session.call({ tool: "plugin_flaky_run", args: { mode: "ok" } });
    expect(result).toEqual({ ok: true, data: { fine: true } });
    expect(audit.records[0]?.notes).toEqual({ fetched: 1 });
  });

  it("stops waiting for a plugin call at the plugin's time limit", async () => {
    const { session } = await sessionFor("call-failures", { timeoutMs: 100 });
    const started = Date.now();
    const hang = await session.call({ tool: "plugin_flaky_run", args: { mode: "hangs" } });
    expect(hang.result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    const late = await session.call({ tool: "plugin_flaky_run", args: { mode: "rejectsLate" } });
    expect(late.result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    expect(Date.now() - started).toBeLessThan(2000);
    // The late rejection settles after the call returned; it must not surface as an unhandled rejection.
    await new Promise((r) => setTimeout(r, 50));
  });

  it("tells a plugin's onAbort listener of its time limit, as its signal does", async () => {
    const { session } = await sessionFor("call-failures", { timeoutMs: 100 });
    const hang = await session.call({ tool: "plugin_flaky_run", args: { mode: "hearsLimit" } });
    expect(hang.result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    const { result } = await session.call({ tool: "plugin_flaky_run", args: { mode: "heard" } });
    expect(result).toEqual({ ok: true, data: "plugin time limit (signal aborted: true)" });
  });

  it.each([
    ["throws", "planning exploded"],
    ["malformed", "declared a malformed access"],
  ])("refuses a call whose access plan %s, before anything runs", async (mode, message) => {
    const { session } = await sessionFor("call-failures");
    const { result, decision } = await session.call({ tool: "plugin_flaky_plan", args: { mode } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "TOOL_FAILED", message: expect.stringContaining(message) },
    });
    expect(decision.verdict).toBe("deny");
  });
});

describe("naming", () => {
  it("refuses the second plugin whose provider name collides with the first", async () => {
    const dist = makeDistribution(["collide-a-b", "collide-a"]);
    const loaded = await loadPlugins(
      [
        { name: "first", package: "fixture-collide-a-b", grants: TOOLS },
        { name: "second", package: "fixture-collide-a", grants: TOOLS },
      ],
      { resolveFrom: dist.root },
    );
    expect(loaded.tools.map((t) => [t.name, t.providerName])).toEqual([["plugin.a-b.c", "plugin_a_b_c"]]);
    expect(loaded.loaded.map((l) => l.name)).toEqual(["first"]);
    expect(loaded.diagnostics).toMatchObject([
      {
        plugin: "second",
        code: "NAME_COLLISION",
        tool: "b_c",
        message: "provider name plugin_a_b_c of plugin.a.b_c collides with plugin.a-b.c",
      },
    ]);
  });

  it("refuses a plugin whose tool collides with a host tool", async () => {
    const dist = makeDistribution(["valid"]);
    const host = {
      ...(
        await loadPlugins([{ name: "v", package: "fixture-valid", grants: TOOLS }], {
          resolveFrom: dist.root,
        })
      ).tools[0],
    } as ToolDefinition;
    const loaded = await loadPlugins([{ name: "v", package: "fixture-valid", grants: TOOLS }], {
      resolveFrom: dist.root,
      reserved: [host],
    });
    expect(loaded.tools).toEqual([]);
    expect(loaded.diagnostics).toMatchObject([
      { code: "NAME_COLLISION", message: "tool plugin.acme.echo is already registered" },
    ]);
  });

  it("keeps provider names within 64 characters, unique and deterministic", async () => {
    const dist = makeDistribution(["long-names"]);
    const entry = { name: "long", package: "fixture-long-names", grants: TOOLS };
    const first = await loadPlugins([entry], { resolveFrom: dist.root });
    const again = await loadPlugins([entry], { resolveFrom: dist.root });
    const names = first.tools.map((t) => t.providerName ?? "");
    expect(names).toEqual(again.tools.map((t) => t.providerName));
    expect(names.every((n) => n.length === 64 && /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
    expect(new Set(names).size).toBe(2);
    expect(names[0]?.startsWith("plugin_a_very_long_plugin_identifier_for_naming_tests_")).toBe(true);
    expect(first.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ["warning", "NAME_SHORTENED"],
      ["warning", "NAME_SHORTENED"],
    ]);
    const session = createKernel().openSession({
      catalog: createCatalog(first.tools),
      permission: { mode: "auto" },
    });
    const { result } = await session.call({ tool: names[1] ?? "", args: { text: "long" } });
    expect(result).toEqual({ ok: true, data: { echoed: "long" } });
  });
});
