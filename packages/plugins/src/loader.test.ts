import { rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPlugins } from "./index.js";
import { makeDistribution } from "./test-support/distribution.js";

const TOOLS = ["agent.tool.register"];

async function loadOne(fixture: string, grants: string[] = TOOLS, options?: unknown) {
  const dist = makeDistribution([fixture]);
  const loaded = await loadPlugins(
    [
      {
        name: fixture,
        package: dist.packages[fixture] ?? "",
        grants,
        ...(options === undefined ? {} : { options }),
      },
    ],
    { resolveFrom: dist.root },
  );
  return { ...loaded, errors: loaded.diagnostics.filter((d) => d.severity === "error") };
}

describe("loadPlugins", () => {
  it("loads a valid plugin as deferred, category plugin tools with prefixed names", async () => {
    const { tools, errors, loaded } = await loadOne("valid");
    expect(errors).toEqual([]);
    expect(loaded).toMatchObject([{ name: "valid", pluginId: "acme", version: "1.0.0" }]);
    expect(tools.map((t) => [t.name, t.providerName, t.category, t.risk, t.deferred, t.effects])).toEqual([
      ["plugin.acme.echo", "plugin_acme_echo", "plugin", "low", true, []],
    ]);
  });

  it("loads only the listed plugins and never scans node_modules", async () => {
    const dist = makeDistribution(["valid", "net-tool"]);
    const loaded = await loadPlugins([], { resolveFrom: dist.root });
    expect(loaded).toEqual({ tools: [], skills: [], diagnostics: [], loaded: [] });
  });

  it.each([
    ["no-manifest", "MANIFEST_MISSING", 'package.json has no "pablo" manifest field'],
    ["bad-package-json", "PACKAGE_JSON_INVALID", "package.json is not valid JSON"],
    ["version-mismatch", "VERSION_MISMATCH", "pablo.version 2.0.0 differs from the package version 1.0.0"],
    [
      "undeclared-tool",
      "UNDECLARED_TOOL",
      "the module registers tool shadow, which the manifest does not declare",
    ],
    ["missing-tool", "MISSING_TOOL", "the manifest declares tool ghost, which the module does not register"],
    [
      "schema-mismatch",
      "SCHEMA_MISMATCH",
      "tool echo: the manifest's inputSchema differs from the registered schema at /properties/text/maxLength (manifest 10, module (absent))",
    ],
    [
      "open-schema",
      "OPEN_SCHEMA",
      "tool echo: the input schema object at # must set additionalProperties: false",
    ],
    [
      "effects-mismatch",
      "EFFECTS_MISMATCH",
      "tool echo: the manifest declares effects [] but the module declares [net]",
    ],
    [
      "risk-mismatch",
      "RISK_MISMATCH",
      "tool echo: the manifest declares risk low but the module declares high",
    ],
    [
      "undeclared-permission",
      "PERMISSION_UNDECLARED",
      "the manifest declares tools but does not request agent.tool.register",
    ],
    ["missing-entry", "ENTRY_MISSING", "entry ./dist/index.js does not exist (was the package built?)"],
    [
      "throws-on-load",
      "LOAD_FAILED",
      "importing the plugin module failed: the plugin module exploded while loading",
    ],
    ["not-a-plugin", "NOT_A_PLUGIN", "the module's default export is not a plugin made with definePlugin"],
    ["id-mismatch", "ID_MISMATCH", "the module's plugin ID other differs from pablo.id acme"],
    ["setup-throws", "SETUP_FAILED", "the plugin's setup threw: setup refused to run"],
    ["invalid-tool-name", "INVALID_TOOL_NAME", 'tool name "bad.name" must match ^[a-zA-Z][a-zA-Z0-9_-]*$'],
  ])("refuses %s with %s", async (fixture, code, message) => {
    const { tools, errors, loaded } = await loadOne(fixture);
    expect(tools).toEqual([]);
    expect(loaded).toEqual([]);
    const match = errors.find((d) => d.code === code);
    expect(match?.message).toContain(message);
    expect(match?.plugin).toBe(fixture);
  });

  it("reports each problem of an invalid manifest with its JSON pointer", async () => {
    const { errors } = await loadOne("invalid-manifest");
    expect(errors.map((d) => [d.code, d.path])).toEqual([
      ["MANIFEST_INVALID", "/pablo"],
      ["MANIFEST_INVALID", "/pablo/id"],
    ]);
    expect(errors[0]?.message).toContain("sandbox");
  });

  it("refuses a plugin whose tool uses an effect the deployment does not grant, before running its code", async () => {
    const refused = await loadOne("net-tool", TOOLS);
    expect(refused.errors).toMatchObject([
      {
        code: "GRANT_MISSING",
        tool: "echo",
        message: "tool echo uses effect net, which the deployment does not grant",
      },
    ]);
    const granted = await loadOne("net-tool", [...TOOLS, "net"]);
    expect(granted.tools.map((t) => t.effects)).toEqual([["net"]]);
  });

  it("refuses a plugin when the deployment does not grant agent.tool.register", async () => {
    const { errors, tools } = await loadOne("valid", []);
    expect(tools).toEqual([]);
    expect(errors).toMatchObject([
      { code: "GRANT_MISSING", message: expect.stringContaining("agent.tool.register") },
    ]);
  });

  it("defaults a missing or invalid risk to medium and says so", async () => {
    const { tools, diagnostics } = await loadOne("risk-defaulted");
    expect(tools.map((t) => t.risk)).toEqual(["medium", "medium"]);
    expect(diagnostics.map((d) => [d.severity, d.code, d.tool])).toEqual([
      ["warning", "RISK_DEFAULTED", "echo"],
      ["warning", "RISK_DEFAULTED", "echo2"],
    ]);
  });

  it("validates the plugin's options with the schema it exports", async () => {
    expect((await loadOne("with-options", TOOLS, { greeting: "hi" })).errors).toEqual([]);
    const bad = await loadOne("with-options", TOOLS, { greeting: 5, extra: true });
    expect(bad.errors).toMatchObject([{ code: "OPTIONS_INVALID" }]);
    const none = await loadOne("valid", TOOLS, { anything: 1 });
    expect(none.errors).toMatchObject([
      { code: "OPTIONS_INVALID", message: expect.stringContaining("takes no options") },
    ]);
  });

  it("returns skill directories only for granted, in-package skill folders", async () => {
    const ok = await loadOne("skills", ["agent.skill.register"]);
    expect(ok.errors).toEqual([]);
    expect(ok.skills).toHaveLength(1);
    expect(ok.skills[0]).toMatchObject({
      pluginId: "skilled",
      dir: expect.stringMatching(/fixture-skills\/skills$/),
    });
    expect((await loadOne("skills", [])).errors).toMatchObject([{ code: "GRANT_MISSING" }]);
    expect((await loadOne("skills-escape", ["agent.skill.register"])).errors).toMatchObject([
      { code: "SKILLS_INVALID", path: "/pablo/skills/0" },
    ]);
  });

  it("refuses a skills directory that is a symlink out of the package", async () => {
    const dist = makeDistribution(["skills"]);
    const skills = join(dist.root, "node_modules", "fixture-skills", "skills");
    rmSync(skills, { recursive: true });
    symlinkSync(tmpdir(), skills);
    const loaded = await loadPlugins(
      [{ name: "s", package: "fixture-skills", grants: ["agent.skill.register"] }],
      {
        resolveFrom: dist.root,
      },
    );
    expect(loaded.skills).toEqual([]);
    expect(loaded.diagnostics).toMatchObject([
      { code: "SKILLS_INVALID", message: "skills directory skills resolves outside the package" },
    ]);
  });

  it("refuses malformed entries, unknown packages and names that try to leave node_modules", async () => {
    const dist = makeDistribution(["valid"]);
    const loaded = await loadPlugins(
      [
        { name: "a", package: "fixture-valid", grants: TOOLS },
        { name: "a", package: "fixture-valid", grants: TOOLS },
        { name: "b", package: "not-installed", grants: TOOLS },
        { name: "c", package: "fixture-valid/../../../etc", grants: TOOLS },
        { name: "d", package: "fixture-valid", grants: "all" as unknown as string[] },
      ],
      { resolveFrom: dist.root },
    );
    expect(loaded.loaded.map((l) => l.name)).toEqual(["a"]);
    expect(loaded.diagnostics.map((d) => [d.plugin, d.code])).toEqual([
      ["a", "INVALID_ENTRY"],
      ["b", "PLUGIN_NOT_FOUND"],
      ["c", "PLUGIN_NOT_FOUND"],
      ["d", "INVALID_ENTRY"],
    ]);
  });

  it("loads a plugin given as a directory path", async () => {
    const dist = makeDistribution(["valid"]);
    const loaded = await loadPlugins(
      [{ name: "p", package: "./node_modules/fixture-valid", grants: TOOLS }],
      {
        resolveFrom: dist.root,
      },
    );
    expect(loaded.tools.map((t) => t.name)).toEqual(["plugin.acme.echo"]);
  });
});
