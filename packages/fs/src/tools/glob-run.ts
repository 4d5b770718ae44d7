import { ok, type ToolContext, type ToolResult } from "@pablo/kernel";
import type { Static } from "typebox";
import type { FsEnv } from "../env.js";
import { displayPath } from "../roots.js";
import { walkTree } from "../walk/tree.js";
import { Yielder } from "../yielder.js";
import { thrownFailure } from "./common.js";
import { DEFAULT_GLOB_RESULTS, type GlobArgs } from "./glob.js";
import { compileGlobPattern, refuseGlobPattern } from "./glob-pattern.js";
import { openPath, shownPath } from "./plan.js";

/** fs.glob's call (see glob.ts); loaded on the tool's first call. */
export async function glob(env: FsEnv, args: Static<typeof GlobArgs>, ctx: ToolContext): Promise<ToolResult> {
  // Again for a direct call that skipped accesses().
  const refused = refuseGlobPattern(args.pattern);
  if (refused) return refused;
  const matcher = compileGlobPattern(args.pattern, { dot: args.dot ?? false });
  if (typeof matcher !== "function") return matcher;
  const resolved = await openPath(env, ctx, args.path ?? ".", "directory");
  if ("ok" in resolved) return resolved;
  const shown = shownPath(resolved);
  try {
    if (resolved.leaf.type !== "directory") throw new Error("resolve returned a non-directory leaf");
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
