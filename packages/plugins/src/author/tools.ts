import { defineTool, ErrorCode, fail, ok, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";
import { onDemand } from "./on-demand.js";
import { type AuthorRoots, locate } from "./paths.js";
import type { ScaffoldErrorCode } from "./scaffold.js";

export interface AuthorToolsOptions extends AuthorRoots {
  /** The npm executable PluginPack runs (default `npm` from PATH). */
  readonly npm?: string;
}

const Dir = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: "Plugin package directory, absolute or relative to the workspace.",
});

/**
 * PluginScaffold, PluginCheck and PluginPack as deferred tools over the workspace. Each declares
 * the directories it touches, so authority layers and the permission mode decide them like any
 * file tool; PluginCheck and PluginPack also run the plugin's code, hence the `process` effect.
 */
export function createPluginAuthorTools(options: AuthorToolsOptions): ToolDefinition[] {
  const scaffold = defineTool({
    name: "plugin-author.scaffold",
    providerName: "PluginScaffold",
    description:
      "Create a new, publishable Pablo plugin package in an empty directory: package.json with its `pablo` manifest, one example tool with its test, a README and a tsconfig. Run PluginCheck after building it.",
    summary: "Create a new plugin package with an example tool",
    inputSchema: Type.Object(
      {
        dir: Dir,
        name: Type.String({
          minLength: 1,
          maxLength: 214,
          description: "npm package name, e.g. @acme/pablo-plugin-lint.",
        }),
      },
      { additionalProperties: false },
    ),
    risk: "high",
    effects: ["fs.write"],
    category: "write",
    mutates: true,
    deferred: true,
    accesses: (args) => {
      const target = locate(options, args.dir);
      return [{ dimension: "fs.write", path: target.path, root: target.root }];
    },
    execute: async (args) => {
      const result = await (await onDemand.scaffold()).scaffoldPlugin(
        locate(options, args.dir).path,
        args.name,
      );
      return result.ok
        ? ok({ dir: result.dir, pluginId: result.pluginId, files: [...result.files] }, { committed: true })
        : fail(SCAFFOLD_TOOL_CODES[result.code], result.message);
    },
  });

  const check = defineTool({
    name: "plugin-author.check",
    providerName: "PluginCheck",
    description:
      "Validate a built plugin package the way a distribution will load it: the `pablo` manifest, the entry module and its default export, closed input schemas, tool names and the 64-character provider names, and every registered tool against the manifest. Returns precise messages with JSON pointers and the manifest entries the module actually registers.",
    summary: "Validate a plugin package's manifest, exports, schemas and names",
    inputSchema: Type.Object({ dir: Dir }, { additionalProperties: false }),
    risk: "high",
    effects: ["fs.read", "process"],
    category: "process",
    mutates: false,
    deferred: true,
    accesses: (args) => {
      const target = locate(options, args.dir);
      return [{ dimension: "fs.read", path: target.path, root: target.root }];
    },
    execute: async (args) => {
      const result = await (await onDemand.check()).checkPlugin(locate(options, args.dir).path);
      return ok(JSON.parse(JSON.stringify(result)));
    },
  });

  const pack = defineTool({
    name: "plugin-author.pack",
    providerName: "PluginPack",
    description:
      "Check a built plugin package, then write its npm tarball (npm pack, lifecycle scripts off) to an output directory, ready for npm publish.",
    summary: "Check a plugin package and produce its npm tarball",
    inputSchema: Type.Object(
      {
        dir: Dir,
        outDir: Type.Optional({
          ...Dir,
          description: "Where the tarball goes (default: the package directory).",
        }),
      },
      { additionalProperties: false },
    ),
    risk: "high",
    effects: ["fs.read", "fs.write", "process"],
    category: "write",
    mutates: true,
    deferred: true,
    accesses: (args) => {
      const source = locate(options, args.dir);
      const out = locate(options, args.outDir ?? args.dir);
      return [
        { dimension: "fs.read", path: source.path, root: source.root },
        { dimension: "fs.write", path: out.path, root: out.root },
      ];
    },
    execute: async (args, ctx) => {
      const source = locate(options, args.dir).path;
      const result = await (await onDemand.pack()).packPlugin(
        source,
        locate(options, args.outDir ?? args.dir).path,
        {
          signal: ctx.signal,
          ...(options.npm ? { npm: options.npm } : {}),
        },
      );
      const data = JSON.parse(JSON.stringify(result));
      return result.ok
        ? ok(data, { committed: true })
        : fail(
            ErrorCode.TOOL_FAILED,
            "the plugin package did not pass its check or could not be packed",
            data,
          );
    },
  });
  return [scaffold, check, pack] as ToolDefinition[];
}

/** A scaffold failure as the tool reports it: the model's mistake, a taken directory, or the filesystem. */
const SCAFFOLD_TOOL_CODES: Record<ScaffoldErrorCode, string> = {
  INVALID_PACKAGE_NAME: ErrorCode.INVALID_ARGUMENT,
  DIRECTORY_NOT_EMPTY: ErrorCode.ALREADY_EXISTS,
  SCAFFOLD_FAILED: ErrorCode.TOOL_FAILED,
};
