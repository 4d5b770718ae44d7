import { describe, expect, it } from "vitest";
import { createCatalog, createKernel } from "./index.js";
import { echoTool, writeTool } from "./test-support/tools.js";

const tools = () => [
  echoTool(),
  writeTool(),
  echoTool({ name: "test.run", risk: "high", effects: ["process"], category: "process", mutates: true }),
];

describe("the read-only profile's catalog", () => {
  it("offers no tool it would deny on every call, and says which rule keeps each out", () => {
    const session = createKernel().openSession({
      catalog: createCatalog(tools()),
      permission: { mode: "read-only" },
    });
    expect(session.visibleTools().map((e) => e.name)).toEqual(["test.echo"]);
    const excluded = session.visibility().filter((v) => !v.visible);
    expect(excluded.map((v) => [v.entry.name, v.code, v.decision.layer, v.decision.rule])).toEqual([
      ["test.write", "TOOL_DENIED", "permission", "permission.read-only"],
      ["test.run", "TOOL_DENIED", "permission", "permission.read-only"],
    ]);
  });

  it("offers a tool whose effect the deployment granted, and every tool under the other modes", () => {
    const granted = createKernel().openSession({
      catalog: createCatalog(tools()),
      permission: { mode: "read-only", grants: ["process"] },
    });
    expect(granted.visibleTools().map((e) => e.name)).toEqual(["test.echo", "test.run"]);
    for (const mode of ["ask", "accept-edits", "auto"] as const) {
      const session = createKernel().openSession({ catalog: createCatalog(tools()), permission: { mode } });
      expect(session.visibleTools(), mode).toHaveLength(3);
    }
  });

  it("agrees with the call: an excluded tool called directly is denied by the same rule", async () => {
    const session = createKernel().openSession({
      catalog: createCatalog(tools()),
      permission: { mode: "read-only" },
    });
    const { result } = await session.call({ tool: "test_write", args: { path: "/tmp/x" } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", details: { rule: "permission.read-only" } },
    });
  });
});
