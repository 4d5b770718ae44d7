import { ErrorCode, fail, ok, type ToolResult } from "@pablo/kernel";
import type { FsEnv } from "../env.js";
import type { Resolution } from "../resolve.js";
import { displayPath } from "../roots.js";
import { literalNeedle } from "../walk/lines.js";
import { searchParallel } from "../walk/search-parallel.js";
import { searchListedFile, searchOpenFile } from "../walk/search-serial.js";
import { SearchTally } from "../walk/tally.js";
import { type Bound, walkTree } from "../walk/tree.js";
import type { Yielder } from "../yielder.js";
import { compileGlobPattern } from "./glob-pattern.js";
import { shownPath } from "./plan.js";
import { DEFAULT_SEARCH_MATCHES } from "./search.js";

/** fs.search over an opened path (see search.ts); loaded on the tool's first call. */
type SearchInput = {
  readonly query: string;
  readonly include?: string | undefined;
  readonly max_matches?: number | undefined;
  readonly max_depth?: number | undefined;
};

export async function search(
  env: FsEnv,
  resolved: Resolution,
  args: SearchInput,
  yielder: Yielder,
): Promise<ToolResult> {
  const { quotas } = env.options;
  const maxMatches = args.max_matches ?? DEFAULT_SEARCH_MATCHES;
  const include = args.include ? compileGlobPattern(args.include, { dot: true }) : undefined;
  if (include !== undefined && typeof include !== "function") return include;
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
