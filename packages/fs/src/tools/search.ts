import { defineTool, ErrorCode, fail, ok, type ToolResult } from "@pablo/kernel";
import picomatch from "picomatch";
import Type from "typebox";
import type { FsEnv } from "../env.js";
import type { Resolution } from "../resolve.js";
import { displayPath } from "../roots.js";
import { literalNeedle } from "../walk/lines.js";
import { searchParallel } from "../walk/search-parallel.js";
import { searchListedFile, searchOpenFile } from "../walk/search-serial.js";
import { SearchTally } from "../walk/tally.js";
import { type Bound, walkTree } from "../walk/tree.js";
import { Yielder } from "../yielder.js";
import { PathArg, thrownFailure } from "./common.js";
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
        return await search(env, resolved, args, new Yielder(ctx.signal));
      } catch (error) {
        return thrownFailure(error, shown);
      } finally {
        await resolved.release();
      }
    },
  });
}

type SearchInput = {
  readonly query: string;
  readonly include?: string | undefined;
  readonly max_matches?: number | undefined;
  readonly max_depth?: number | undefined;
};

async function search(
  env: FsEnv,
  resolved: Resolution,
  args: SearchInput,
  yielder: Yielder,
): Promise<ToolResult> {
  const { quotas } = env.options;
  const maxMatches = args.max_matches ?? DEFAULT_SEARCH_MATCHES;
  const include = args.include ? picomatch(args.include, { dot: true }) : undefined;
  const tally = new SearchTally(maxMatches, quotas.scan_bytes);
  const common = {
    io: env.io,
    needle: literalNeedle(Buffer.from(args.query, "utf8")),
    fileBytes: quotas.file_bytes,
    tally,
    yielder,
    buffers: { buffer: Buffer.allocUnsafe(64 * 1024) },
  };
  const pathOf = (relative: readonly string[]) =>
    displayPath(resolved.root, [...resolved.components, ...relative]);
  const leaf = resolved.leaf;
  let bound: Bound | undefined;
  if (leaf.type === "file") {
    if (include && !include(resolved.name ?? "")) tally.skipped.excluded++;
    else bound = await searchOpenFile(common, leaf.handle, leaf.info.size, () => pathOf([]));
  } else if (leaf.type === "directory") {
    const limits = { maxDepth: minDefined(args.max_depth, quotas.search_depth), maxEntries: quotas.entries };
    // Worker threads scan beside this thread when the port offers them (a small tree is done
    // before they would have started); a scan-byte quota keeps the search on one thread, so the quota bounds
    // what is read and not only what is reported.
    const scanFiles = env.io.scanFiles?.bind(env.io);
    if (scanFiles && quotas.scan_bytes === undefined) {
      const scanReady = env.io.scanReady?.bind(env.io) ?? (() => true);
      const scanQueued = env.io.scanQueued?.bind(env.io);
      const cancelScans = env.io.cancelScans?.bind(env.io);
      bound = await searchParallel(
        { ...common, scanFiles, scanReady, scanQueued, cancelScans, include, maxMatches, pathOf },
        leaf.handle,
        limits,
      );
    } else {
      const walked = await walkTree(
        env.io,
        leaf.handle,
        async (dir, name, relative) => {
          if (include && !include(name)) {
            tally.skipped.excluded++;
            return undefined;
          }
          return searchListedFile(common, dir, name, () => pathOf(relative));
        },
        limits,
        yielder,
        { onSkip: (what) => void tally.skipped[what]++ },
      );
      bound = walked.bound;
    }
  } else {
    return fail(ErrorCode.TOOL_FAILED, "the search root is neither a file nor a directory");
  }
  return ok({
    path: shownPath(resolved),
    root: resolved.root.kind,
    query: args.query,
    matches: tally.matches.map((m) => ({ ...m })),
    files_scanned: tally.files,
    bytes_scanned: tally.bytes,
    skipped: { ...tally.skipped },
    bound: bound ?? null,
    complete: bound === undefined,
  });
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
