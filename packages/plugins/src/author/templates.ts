import { toJsonSchema } from "@pablo/kernel";
import Type from "typebox";
import type { ManifestTool } from "../manifest.js";

/** The example tool's input schema; the scaffolded source builds exactly this. */
const GreetInput = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, description: "Who to greet." }) },
  { additionalProperties: false },
);

export function exampleManifestTool(): ManifestTool {
  return {
    name: "greet",
    summary: "Greet someone by name",
    risk: "low",
    effects: [],
    inputSchema: toJsonSchema(GreetInput),
  };
}

export function sourceTemplate(pluginId: string): string {
  return `import { definePlugin, defineTool } from "@pablo/plugins";
import Type from "typebox";

// Keep pablo.tools[].inputSchema in package.json equal to this schema: \`pablo plugin check\` compares them.
const GreetInput = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, description: "Who to greet." }) },
  { additionalProperties: false },
);

/** An example tool: no effects, so it needs no grant beyond agent.tool.register. */
export const greet = defineTool({
  name: "greet",
  description: "Returns a friendly greeting for the given name. Reads and changes nothing.",
  summary: "Greet someone by name",
  inputSchema: GreetInput,
  risk: "low",
  effects: [],
  mutates: false,
  execute: async (args) => ({ ok: true, data: { greeting: \`Hello, \${args.name}!\` } }),
});

export default definePlugin({
  id: ${JSON.stringify(pluginId)},
  setup(host) {
    host.registerTool(greet);
  },
});
`;
}

export function testTemplate(pluginId: string): string {
  return `import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { checkPlugin } from "@pablo/plugins";
import plugin, { greet } from "./index.js";

test("the plugin is ${pluginId}", () => {
  assert.equal(plugin.id, ${JSON.stringify(pluginId)});
});

test("greet greets by name", async () => {
  const result = await greet.execute({ name: "Ada" }, {} as Parameters<typeof greet.execute>[1]);
  assert.deepEqual(result, { ok: true, data: { greeting: "Hello, Ada!" } });
});

test("the manifest matches what the module registers", async () => {
  const packageDir = fileURLToPath(new URL("..", import.meta.url));
  const checked = await checkPlugin(packageDir);
  assert.deepEqual(checked.messages.filter((m) => m.severity === "error"), []);
});
`;
}

export function readmeTemplate(name: string, pluginId: string): string {
  return `# ${name}

A [Pablo](https://www.npmjs.com/package/@pablo/plugins) plugin (ID \`${pluginId}\`).

## Tools

| tool | model sees | risk | effects | what it does |
| --- | --- | --- | --- | --- |
| \`greet\` | \`plugin_${pluginId.replace(/[^a-zA-Z0-9]/g, "_")}_greet\` | low | none | Returns a greeting for a name. |

Plugin tools run in Agent mode only; in Plan and Goal they are refused with \`PLUGIN_DISABLED_IN_PLAN\`.

## Use it in a distribution

\`\`\`toml
[options.plugins.${pluginId}]
package = "${name}"
grants = ["agent.tool.register"]
\`\`\`

## Develop

\`\`\`sh
npm install
npm run build && npm test
pablo plugin check .
pablo plugin pack .
\`\`\`
`;
}

export function packageJsonTemplate(name: string, pluginId: string): Record<string, unknown> {
  return {
    name,
    version: "0.1.0",
    description: `Pablo plugin ${pluginId}`,
    type: "module",
    exports: {
      ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./package.json": "./package.json",
    },
    files: ["dist", "!dist/**/*.test.*", "README.md"],
    scripts: { build: "tsc -p tsconfig.json", test: "node --test dist/index.test.js" },
    keywords: ["pablo-plugin"],
    engines: { node: ">=20.11" },
    dependencies: { "@pablo/plugins": "^0.1.0", typebox: "^1.4.3" },
    devDependencies: { "@types/node": "^20.19.0", typescript: "^5.9.3" },
    pablo: {
      id: pluginId,
      version: "0.1.0",
      permissions: ["agent.tool.register"],
      tools: [exampleManifestTool()],
    },
  };
}

export const TSCONFIG_TEMPLATE = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    declaration: true,
    rootDir: "src",
    outDir: "dist",
    skipLibCheck: true,
    types: ["node"],
  },
  include: ["src"],
};
