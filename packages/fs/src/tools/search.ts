import { defineTool, ErrorCode, fail, ok, type ToolResult } from "@pablo/kernel";
import picomatch from "picomatch";
import Type from "typebox";
import type { FsEnv } from "../env.js";
import { errorCode } from "../port/types.js";
import type { Resolution } from "../resolve.js";
import { displayPath } from "../roots.js";
import { type LineMatch, scanFile } from "../walk/scan.js";
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

interface FileMatches extends LineMatch {
  readonly path: string;
}

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
    async accesses(args, ctx) {
      const planned = await planPath(env, args.path ?? ".");
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
  const query = Buffer.from(args.query, "utf8");
  const include = args.include ? picomatch(args.include, { dot: true }) : undefined;
  const maxMatches = args.max_matches ?? DEFAULT_SEARCH_MATCHES;
  const matches: FileMatches[] = [];
  const skipped = { symlinks: 0, special: 0, binary: 0, large: 0, excluded: 0 };
  const buffers = { buffer: Buffer.allocUnsafe(64 * 1024) };
  let files = 0;
  let bytes = 0;

  const searchFile = async (
    handle: number,
    size: number,
    relative: readonly string[],
  ): Promise<Bound | undefined> => {
    if (quotas.file_bytes !== undefined && size > quotas.file_bytes) {
      skipped.large++;
      return undefined;
    }
    if (quotas.scan_bytes !== undefined && bytes + size > quotas.scan_bytes) return "scan_bytes";
    files++;
    const found = await scanFile(env.io, handle, size, query, maxMatches - matches.length, buffers, yielder);
    bytes += found.bytes;
    if (found.binary) skipped.binary++;
    const path = displayPath(resolved.root, [...resolved.components, ...relative]);
    for (const match of found.matches) matches.push({ path, ...match });
    return found.more ? "matches" : undefined;
  };

  let bound: Bound | undefined;
  let counts = { directories: 0, entries: 0, symlinks: 0, special: 0 };
  const leaf = resolved.leaf;
  if (leaf.type === "file") {
    const name = resolved.name ?? "";
    if (include && !include(name)) skipped.excluded++;
    else bound = await searchFile(leaf.handle, leaf.info.size, []);
  } else if (leaf.type === "directory") {
    const walked = await walkTree(
      env.io,
      leaf.handle,
      async (dir, name, relative) => {
        if (include && !include(name)) {
          skipped.excluded++;
          return undefined;
        }
        const opened = await openForScan(env, dir, name);
        if (opened === "symlink") skipped.symlinks++;
        else if (opened === "special") skipped.special++;
        if (typeof opened !== "object") return undefined;
        try {
          return await searchFile(opened.handle, opened.size, relative);
        } finally {
          await env.io.close(opened.handle).catch(() => undefined);
        }
      },
      { maxDepth: minDefined(args.max_depth, quotas.search_depth), maxEntries: quotas.entries },
      yielder,
    );
    bound = walked.bound;
    counts = walked.counts;
  } else {
    return fail(ErrorCode.TOOL_FAILED, "the search root is neither a file nor a directory");
  }
  return ok({
    path: shownPath(resolved),
    root: resolved.root.kind,
    query: args.query,
    matches: matches.map((m) => ({ ...m })),
    files_scanned: files,
    bytes_scanned: bytes,
    skipped: {
      ...skipped,
      symlinks: skipped.symlinks + counts.symlinks,
      special: skipped.special + counts.special,
    },
    bound: bound ?? null,
    complete: bound === undefined,
  });
}

/** Opens a listed file without following links; a file swapped for a link or FIFO since the listing is skipped. */
async function openForScan(
  env: FsEnv,
  dir: number,
  name: string,
): Promise<{ handle: number; size: number } | "symlink" | "special" | "gone"> {
  try {
    const opened = await env.io.openFile(dir, name);
    return { handle: opened.handle, size: opened.info.size };
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP") return "symlink";
    if (code === "ENOTREG" || code === "EISDIR" || code === "ENXIO") return "special";
    if (code === "ENOENT") return "gone";
    throw error;
  }
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
