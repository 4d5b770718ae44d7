import { describe, expect, it } from "vitest";
import { createCatalog, createKernel, defineLayer, ok } from "./index.js";
import { ScriptedBroker } from "./test-support/session.js";
import { echoTool, writeTool } from "./test-support/tools.js";

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
