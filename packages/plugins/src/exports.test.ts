import * as kernel from "@pablo/kernel";
import Type from "typebox";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";
import { definePlugin, defineTool, instantiatePlugin, ok } from "./index.js";

describe("@pablo/plugins public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_PLUGIN_TIMEOUT_MS",
        "ErrorCode",
        "PLUGIN_API_VERSION",
        "PLUGIN_PERMISSIONS",
        "PluginCode",
        "PluginEntryOptionsSchema",
        "PluginManifestSchema",
        "UrlCode",
        "checkCanonicalUrl",
        "checkPlugin",
        "createPluginAuthorTools",
        "definePlugin",
        "defineTool",
        "effectiveRisk",
        "fail",
        "instantiatePlugin",
        "isPabloPlugin",
        "isValidPluginId",
        "isValidToolName",
        "loadPlugins",
        "ok",
        "packPlugin",
        "pluginIdFromPackageName",
        "pluginIdSafe",
        "pluginNativeName",
        "pluginProviderName",
        "scaffoldPlugin",
        "validateManifest",
      ]
    `);
  });
});

describe("the kernel's canonical-URL check, re-exported", () => {
  it("is the kernel's own function and code register, not a copy", () => {
    expect(api.checkCanonicalUrl).toBe(kernel.checkCanonicalUrl);
    expect(api.UrlCode).toBe(kernel.UrlCode);
    expect(api.checkCanonicalUrl("https://example.com/a/%2e%2e/b")).toMatchObject({
      ok: false,
      code: api.UrlCode.URL_DOT_SEGMENT,
    });
  });
});

describe("instantiatePlugin", () => {
  const input = Type.Object(
    { n: Type.Number({ description: "A number." }) },
    { additionalProperties: false },
  );
  const plugin = definePlugin({
    id: "calc",
    setup(host) {
      host.registerTool(
        defineTool({
          name: "double",
          description: "Doubles n.",
          summary: "Double",
          inputSchema: input,
          effects: [],
          execute: async (a) => ok(a.n * 2),
        }),
      );
    },
  });
  const manifest = {
    id: "calc",
    version: "1.0.0",
    permissions: ["agent.tool.register"],
    tools: [{ name: "double", effects: [], inputSchema: JSON.parse(JSON.stringify(input)) }],
  };

  it("checks an in-process plugin against its manifest like a loaded one", async () => {
    const made = await instantiatePlugin(plugin, manifest, { name: "calc", grants: ["agent.tool.register"] });
    expect(made.tools.map((t) => [t.name, t.providerName, t.risk])).toEqual([
      ["plugin.calc.double", "plugin_calc_double", "medium"],
    ]);
    expect(made.diagnostics.map((d) => d.code)).toEqual(["RISK_DEFAULTED"]);
    const refused = await instantiatePlugin(
      plugin,
      { ...manifest, tools: [] },
      { name: "calc", grants: ["agent.tool.register"] },
    );
    expect(refused.tools).toEqual([]);
    expect(refused.diagnostics.map((d) => d.code)).toEqual(["UNDECLARED_TOOL"]);
  });
});
