import { defineTool, type ToolResult } from "@pablo/kernel";
import Type from "typebox";
import type { FsEnv } from "../env.js";
import { PathArg } from "./common.js";
import { onDemand } from "./on-demand.js";
import { declare, planPath } from "./plan.js";

export const DEFAULT_GLOB_RESULTS = 1000;
export const MAX_GLOB_RESULTS = 10_000;

export const GlobArgs = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        'Glob matched against paths relative to `path`, for example "**/*.ts" or "src/*.json". `**` crosses directories. ' +
        'Absolute patterns and ".." segments (however spelled, also inside braces) are refused.',
    }),
    path: Type.Optional(PathArg("The directory to search under", '"."')),
    max_results: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_GLOB_RESULTS,
        description: `Most files returned (default ${DEFAULT_GLOB_RESULTS}).`,
      }),
    ),
    max_depth: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "Deepest directory level to descend to (1: only `path` itself).",
      }),
    ),
    dot: Type.Optional(
      Type.Boolean({ description: 'Let wildcards match names starting with "." (default false).' }),
    ),
  },
  { additionalProperties: false },
);

export function globTool(env: FsEnv) {
  return defineTool({
    name: "fs.glob",
    summary: "Find files by glob pattern under a directory",
    description:
      "Finds regular files whose path relative to `path` matches a glob pattern. Walks depth-first with " +
      "children in byte order of their names, never follows links, and stops at `max_results`, the depth " +
      "and entry quotas; `bound` says which bound stopped it (null when complete). Paths are shown relative " +
      "to the workspace, or absolute outside it.",
    inputSchema: GlobArgs,
    risk: "low",
    effects: ["fs.read"],
    category: "read",
    mutates: false,
    // Seed 001 2.1: Glob and Grep load on demand in Agent mode; Plan and Goal keep them active.
    deferred: "agent-mode",
    async accesses(args, ctx) {
      const patterns = await onDemand.globPattern();
      const refused = patterns.refuseGlobPattern(args.pattern);
      if (refused) return refused;
      const matcher = patterns.compileGlobPattern(args.pattern, { dot: args.dot ?? false });
      if (typeof matcher !== "function") return matcher;
      const planned = await planPath(env, args.path ?? ".", "directory");
      return "ok" in planned ? planned : declare(env, ctx, planned, ["fs.read"]);
    },
    async execute(args, ctx): Promise<ToolResult> {
      return (await onDemand.glob()).glob(env, args, ctx);
    },
  });
}
