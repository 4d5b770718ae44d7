import { defineTool, type ToolResult } from "@pablo/kernel";
import Type from "typebox";
import type { FsEnv } from "../env.js";
import { Yielder } from "../yielder.js";
import { PathArg, thrownFailure } from "./common.js";
import { onDemand } from "./on-demand.js";
import { declare, openPath, planPath, shownPath } from "./plan.js";

export const DEFAULT_SEARCH_MATCHES = 200;
export const MAX_SEARCH_MATCHES = 10_000;

export const SearchArgs = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "Literal text to find, case-sensitive. Not a regular expression.",
    }),
    path: Type.Optional(
      PathArg(
        "A directory to search recursively, or one file to search alone (siblings are not walked)",
        '"."',
      ),
    ),
    include: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'Glob on base names, for example "*.ts" or "*.{md,txt}"; other files are skipped.',
      }),
    ),
    max_matches: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_SEARCH_MATCHES,
        description: `Most matching lines returned (default ${DEFAULT_SEARCH_MATCHES}).`,
      }),
    ),
    max_depth: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "Deepest directory level to descend to (1: only `path` itself).",
      }),
    ),
  },
  { additionalProperties: false },
);

export function searchTool(env: FsEnv) {
  return defineTool({
    name: "fs.search",
    summary: "Literal recursive text search in files",
    description:
      "Searches UTF-8 files for a literal, case-sensitive string. `path` may be a directory (searched " +
      "recursively, depth-first, names in byte order) or one file. Returns matching lines with 1-based line " +
      "and column numbers in a deterministic order. Skips links, special files and binary files (a NUL byte " +
      "or invalid UTF-8). Stops at `max_matches`, `max_depth` and the deployment's scan-byte, depth and entry " +
      "quotas; `bound` names the bound that stopped it (null when the search was complete).",
    inputSchema: SearchArgs,
    risk: "low",
    effects: ["fs.read"],
    category: "read",
    mutates: false,
    // Seed 001 2.1: Glob and Grep load on demand in Agent mode; Plan and Goal keep them active.
    deferred: "agent-mode",
    async accesses(args, ctx) {
      const planned = await planPath(env, args.path ?? ".", "file-or-directory");
      return "ok" in planned ? planned : declare(env, ctx, planned, ["fs.read"]);
    },
    async execute(args, ctx): Promise<ToolResult> {
      const resolved = await openPath(env, ctx, args.path ?? ".", "file-or-directory");
      if ("ok" in resolved) return resolved;
      const shown = shownPath(resolved);
      try {
        return await (await onDemand.search()).search(env, resolved, args, new Yielder(ctx.signal));
      } catch (error) {
        return thrownFailure(error, shown);
      } finally {
        await resolved.release();
      }
    },
  });
}
