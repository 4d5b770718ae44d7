import Type from "typebox";
import { describe, expect, it } from "vitest";
import { definePlugin, defineTool, instantiatePlugin, ok } from "./index.js";

const input = Type.Object({}, { additionalProperties: false });
const tool = (name: string, effects: string[]) =>
  defineTool({
    name,
    description: name,
    summary: name,
    inputSchema: input,
    risk: "low",
    effects,
    execute: async () => ok(name),
  });
const plugin = definePlugin({
  id: "two",
  setup(host) {
    host.registerTool(tool("read", ["net", "net.read"]));
    host.registerTool(tool("post", ["net", "net.post"]));
  },
});
const manifest = {
  id: "two",
  version: "1.0.0",
  permissions: ["agent.tool.register"],
  tools: [
    {
      name: "read",
      risk: "low",
      effects: ["net", "net.read"],
      inputSchema: JSON.parse(JSON.stringify(input)),
    },
    {
      name: "post",
      risk: "low",
      effects: ["net", "net.post"],
      inputSchema: JSON.parse(JSON.stringify(input)),
    },
  ],
};
const load = (grants: string[]) => instantiatePlugin(plugin, manifest, { name: "two", grants });

describe("grants are checked per tool", () => {
  it("leaves out only the tool whose effect is not granted, with a warning", async () => {
    const made = await load(["agent.tool.register", "net", "net.read"]);
    expect(made.tools.map((t) => t.name)).toEqual(["plugin.two.read"]);
    expect(made.diagnostics.map((d) => [d.severity, d.code, d.tool])).toEqual([
      ["warning", "GRANT_MISSING", "post"],
    ]);
  });

  it("refuses the plugin when no tool would remain", async () => {
    const made = await load(["agent.tool.register", "net"]);
    expect(made.tools).toEqual([]);
    expect(made.diagnostics.map((d) => [d.severity, d.code, d.tool])).toEqual([
      ["error", "GRANT_MISSING", "read"],
      ["error", "GRANT_MISSING", "post"],
    ]);
  });

  it("does not require a left-out tool to be registered", async () => {
    const partial = definePlugin({
      id: "two",
      setup(host) {
        if (host.grants.includes("net.read")) host.registerTool(tool("read", ["net", "net.read"]));
        if (host.grants.includes("net.post")) host.registerTool(tool("post", ["net", "net.post"]));
      },
    });
    const made = await instantiatePlugin(partial, manifest, {
      name: "two",
      grants: ["agent.tool.register", "net", "net.post"],
    });
    expect(made.tools.map((t) => t.name)).toEqual(["plugin.two.post"]);
    expect(made.diagnostics.map((d) => d.code)).toEqual(["GRANT_MISSING"]);
  });
});
