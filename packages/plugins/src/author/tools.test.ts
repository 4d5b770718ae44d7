import { mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCatalog, createKernel, defineLayer } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { checkPlugin, createPluginAuthorTools, packPlugin } from "../index.js";
import { makeDistribution } from "../test-support/distribution.js";

function workspace(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "pablo-author-")));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("checkPlugin and packPlugin", () => {
  it("reports a schema mismatch precisely and suggests the manifest entry the module registers", async () => {
    const dist = makeDistribution(["schema-mismatch"]);
    const checked = await checkPlugin(join(dist.root, "node_modules", "fixture-schema-mismatch"));
    expect(checked.valid).toBe(false);
    expect(checked.messages.filter((m) => m.severity === "error")).toMatchObject([
      { code: "SCHEMA_MISMATCH", tool: "echo", path: "/pablo/tools/0/inputSchema" },
    ]);
    expect(checked.messages.filter((m) => m.severity === "warning").map((m) => m.message)).toEqual([
      "package.json sets private: true, so npm will not publish it",
      "@pablo/plugins should be a dependency or peer dependency",
      "the package has no README.md",
    ]);
    expect(checked.registered).toMatchObject([
      { name: "echo", risk: "low", effects: [], inputSchema: { additionalProperties: false } },
    ]);
  });

  it("refuses to pack a package that fails its check", async () => {
    const dist = makeDistribution(["undeclared-tool"]);
    const out = workspace();
    const packed = await packPlugin(join(dist.root, "node_modules", "fixture-undeclared-tool"), out);
    expect(packed.ok).toBe(false);
    expect(packed.tarball).toBeUndefined();
    expect(packed.messages).toContainEqual(expect.objectContaining({ code: "UNDECLARED_TOOL" }));
  });
});

describe("PluginScaffold, PluginCheck and PluginPack", () => {
  it("are deferred tools with their provider names", () => {
    const tools = createPluginAuthorTools({ workspace: "/w" });
    expect(tools.map((t) => [t.providerName, t.category, t.risk, t.deferred])).toEqual([
      ["PluginScaffold", "write", "high", true],
      ["PluginCheck", "process", "high", true],
      ["PluginPack", "write", "high", true],
    ]);
  });

  it("scaffolds inside the workspace through the kernel, and policy decides on the real target", async () => {
    const root = workspace();
    const outside = workspace();
    symlinkSync(outside, join(root, "escape"));
    const catalog = createCatalog(createPluginAuthorTools({ workspace: root }));
    const layer = defineLayer({ id: "deployment", "fs.write": { allow: [{ id: "workspace", path: root }] } });
    const session = createKernel().openSession({ catalog, layers: [layer], permission: { mode: "auto" } });

    const made = await session.call({
      tool: "PluginScaffold",
      args: { dir: "lint", name: "pablo-plugin-lint" },
    });
    expect(made.result).toMatchObject({ ok: true, data: { pluginId: "lint", dir: join(root, "lint") } });
    const manifest = JSON.parse(readFileSync(join(root, "lint", "package.json"), "utf8")).pablo;
    expect(manifest).toMatchObject({
      id: "lint",
      permissions: ["agent.tool.register"],
      tools: [{ name: "greet" }],
    });

    const escaped = await session.call({ tool: "PluginScaffold", args: { dir: "escape/x", name: "x" } });
    expect(escaped.decision).toMatchObject({ verdict: "deny", layer: "deployment", rule: "default" });
    expect(escaped.result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });

    const again = await session.call({
      tool: "PluginScaffold",
      args: { dir: "lint", name: "pablo-plugin-lint" },
    });
    expect(again.result).toMatchObject({ ok: false, error: { code: "ALREADY_EXISTS" } });

    writeFileSync(join(root, "notes.txt"), "x");
    const inFile = await session.call({
      tool: "PluginScaffold",
      args: { dir: "notes.txt/sub", name: "pablo-plugin-lint" },
    });
    expect(inFile.result).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
  });

  it("refuses to scaffold or pack in Plan mode; PluginCheck reports an unbuilt package", async () => {
    const root = workspace();
    const catalog = createCatalog(createPluginAuthorTools({ workspace: root }));
    const plan = createKernel().openSession({ catalog, mode: "plan", permission: { mode: "auto" } });
    for (const tool of ["PluginScaffold", "PluginPack"]) {
      const { result } = await plan.call({
        tool,
        args: { dir: "p", ...(tool === "PluginScaffold" ? { name: "p" } : {}) },
      });
      expect(result).toMatchObject({ ok: false, error: { code: "DISABLED_IN_MODE" } });
    }
    const agent = createKernel().openSession({ catalog, permission: { mode: "auto" } });
    await agent.call({ tool: "PluginScaffold", args: { dir: "p", name: "pablo-plugin-p" } });
    const { result } = await agent.call({ tool: "PluginCheck", args: { dir: "p" } });
    expect(result).toMatchObject({
      ok: true,
      data: {
        valid: false,
        messages: [
          { code: "ENTRY_MISSING", message: "entry ./dist/index.js does not exist (was the package built?)" },
        ],
      },
    });
  });
});
