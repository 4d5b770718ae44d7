import { defineTool, ok, type ToolResult } from "@pablo/kernel";
import picomatch from "picomatch";
import Type from "typebox";
import type { FsEnv } from "../env.js";
import { displayPath } from "../roots.js";
import { walkTree } from "../walk/tree.js";
import { Yielder } from "../yielder.js";
import { PathArg, thrownFailure } from "./common.js";
import { refuseGlobPattern } from "./glob-pattern.js";
import { declare, openPath, planPath, shownPath } from "./plan.js";

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
      const refused = refuseGlobPattern(args.pattern);
      if (refused) return refused;
      const planned = await planPath(env, args.path ?? ".", "directory");
      return "ok" in planned ? planned : declare(env, ctx, planned, ["fs.read"]);
    },
    async execute(args, ctx): Promise<ToolResult> {
      // Again for a direct call that skipped accesses().
      const refused = refuseGlobPattern(args.pattern);
      if (refused) return refused;
      const resolved = await openPath(env, ctx, args.path ?? ".", "directory");
      if ("ok" in resolved) return resolved;
      const shown = shownPath(resolved);
      try {
        if (resolved.leaf.type !== "directory") throw new Error("resolve returned a non-directory leaf");
        const matcher = picomatch(args.pattern, { dot: args.dot ?? false });
        const max = args.max_results ?? DEFAULT_GLOB_RESULTS;
        const files: string[] = [];
        const quotaDepth = env.options.quotas.search_depth;
        const { bound, counts } = await walkTree(
          env.io,
          resolved.leaf.handle,
          async (_dir, _name, relative) => {
            if (!matcher(relative.join("/"))) return undefined;
            if (files.length >= max) return "results";
            files.push(displayPath(resolved.root, [...resolved.components, ...relative]));
            return undefined;
          },
          {
            maxDepth: minDefined(args.max_depth, quotaDepth),
            usefulDepth: usefulDepth(args.pattern),
            maxEntries: env.options.quotas.entries,
          },
          new Yielder(ctx.signal),
        );
        return ok({
          path: shown,
          root: resolved.root.kind,
          pattern: args.pattern,
          files,
          bound: bound ?? null,
          complete: bound === undefined,
          skipped: { symlinks: counts.symlinks, special: counts.special },
        });
      } catch (error) {
        return thrownFailure(error, shown);
      } finally {
        await resolved.release();
      }
    },
  });
}

/** A pattern without `**` cannot match deeper than its number of segments. */
function usefulDepth(pattern: string): number | undefined {
  return pattern.includes("**") ? undefined : pattern.split("/").length;
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
