import { createCatalog, createKernel, defineLayer } from "@pablo/kernel";
import { inertTool } from "@pablo/test-support";
import { describe, expect, it } from "vitest";
import { allowedToolsLayer } from "./allowed-tools.js";
import { parseAllowedTools } from "./validate.js";

const tool = (name: string) => inertTool(name, { data: name });

const catalog = createCatalog([
  tool("fs.read"),
  tool("fs.search"),
  tool("shell.run"),
  tool("skill.activate"),
]);
const viaCatalog = (token: string) => catalog.resolve(token)?.name;

describe("allowed-tools", () => {
  it("splits on spaces outside parentheses", () => {
    expect(parseAllowedTools("  Read Grep\tBash(git log:*)  Write ")).toEqual([
      "Read",
      "Grep",
      "Bash(git log:*)",
      "Write",
    ]);
  });

  it("is no restriction at all when no activated skill declares it", () => {
    expect(allowedToolsLayer([{ id: "team/a" }])).toEqual({ layer: undefined, allowed: [], dropped: [] });
  });

  it("restricts a session to the union of the tools the skills name, citing the skill", async () => {
    const { layer, allowed, dropped } = allowedToolsLayer(
      [
        { id: "team/a", allowedTools: ["fs_read", "Bash(git:*)"] },
        { id: "team/b", allowedTools: ["fs.search", "Nonexistent"] },
        { id: "team/c" },
      ],
      { resolve: viaCatalog, alsoAllow: ["skill.activate"] },
    );
    expect(allowed).toEqual(["fs.read", "fs.search", "skill.activate"]);
    expect(dropped.map((d) => [d.skill, d.token])).toEqual([
      ["team/a", "Bash(git:*)"],
      ["team/b", "Nonexistent"],
    ]);
    if (!layer) throw new Error("expected a layer");
    const session = createKernel().openSession({ catalog, layers: [layer], permission: { mode: "auto" } });
    expect((await session.call({ tool: "fs_read", args: {} })).decision).toMatchObject({
      verdict: "allow",
      rule: "team/a:0",
    });
    expect((await session.call({ tool: "skill_activate", args: {} })).result.ok).toBe(true);
    const denied = await session.call({ tool: "shell_run", args: {} });
    expect(denied.result).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", details: { layer: "skills.allowed-tools", rule: "default" } },
    });
    expect(session.visibleTools().map((e) => e.name)).toEqual(["fs.read", "fs.search", "skill.activate"]);
  });

  it("never grants: a tool another layer denies stays denied even when a skill names it", async () => {
    const { layer } = allowedToolsLayer([{ id: "team/a", allowedTools: ["shell.run", "fs.read"] }]);
    if (!layer) throw new Error("expected a layer");
    const deployment = defineLayer({
      id: "deployment",
      tool: { deny: [{ id: "no-shell", match: "shell.run" }] },
    });
    const session = createKernel().openSession({
      catalog,
      layers: [deployment, layer],
      permission: { mode: "auto" },
    });
    expect((await session.call({ tool: "shell_run", args: {} })).decision).toMatchObject({
      verdict: "deny",
      layer: "deployment",
      rule: "no-shell",
    });
  });

  it("denies every tool when a skill declares allowed-tools but none of them resolves", async () => {
    const { layer, allowed } = allowedToolsLayer([{ id: "team/a", allowedTools: ["Read"] }], {
      resolve: viaCatalog,
    });
    expect(allowed).toEqual([]);
    if (!layer) throw new Error("expected a layer");
    const session = createKernel().openSession({ catalog, layers: [layer] });
    expect(session.visibleTools()).toEqual([]);
  });

  it("keeps rule ids valid for long qualified ids", () => {
    const id = `${"r".repeat(64)}/${"n".repeat(64)}`;
    const { layer } = allowedToolsLayer([{ id, allowedTools: ["fs.read"] }]);
    expect(layer?.tool?.allow?.[0]?.id).toMatch(/^skill:[0-9a-f]{16}$/);
  });
});
