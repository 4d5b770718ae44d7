import type { FsPort } from "../port/types.js";
import { errorCode } from "../port/types.js";
import type { Yielder } from "../yielder.js";
import { byteOrder } from "./order.js";

/** Which bound stopped a walk or search; null when it ran to completion. */
export type Bound = "matches" | "results" | "scan_bytes" | "depth" | "entries";

export interface WalkCounts {
  directories: number;
  entries: number;
  symlinks: number;
  special: number;
}

export interface WalkLimits {
  /** Deepest level to list: 1 lists only the start directory's children. Passing it is a `depth` bound. */
  readonly maxDepth: number | undefined;
  /** Depth past which nothing can match (a glob without `**`); passing it is not a bound. */
  readonly usefulDepth?: number | undefined;
  readonly maxEntries: number | undefined;
}

/** Called for each regular file, in walk order; returns a bound to stop the walk. */
export type FileVisitor = (
  dir: number,
  name: string,
  relative: readonly string[],
) => Promise<Bound | undefined>;

/**
 * Depth-first walk of a directory, children in byte order of their names, never following links:
 * child directories are opened with `O_NOFOLLOW | O_DIRECTORY` relative to their parent's
 * descriptor, which stays open while its files are visited (a closed descriptor's number could be
 * reused by another directory). Links and special files are counted and skipped.
 */
export async function walkTree(
  io: FsPort,
  start: number,
  visit: FileVisitor,
  limits: WalkLimits,
  yielder: Yielder,
): Promise<{ bound: Bound | undefined; counts: WalkCounts }> {
  const counts: WalkCounts = { directories: 0, entries: 0, symlinks: 0, special: 0 };
  let depthCut = false;
  const walk = async (dir: number, relative: string[], depth: number): Promise<Bound | undefined> => {
    counts.directories++;
    const entries = byteOrder(await io.list(dir));
    for (const entry of entries) {
      await yielder.checkpoint();
      if (limits.maxEntries !== undefined && counts.entries >= limits.maxEntries) return "entries";
      counts.entries++;
      const path = [...relative, entry.name];
      if (entry.type === "file") {
        const bound = await visit(dir, entry.name, path);
        if (bound) return bound;
      } else if (entry.type === "directory") {
        if (limits.usefulDepth !== undefined && depth >= limits.usefulDepth) continue;
        if (limits.maxDepth !== undefined && depth >= limits.maxDepth) {
          depthCut = true;
          continue;
        }
        const child = await openChild(io, dir, entry.name);
        if (child === undefined) {
          counts.symlinks++;
          continue;
        }
        try {
          const bound = await walk(child, path, depth + 1);
          if (bound) return bound;
        } finally {
          await io.close(child).catch(() => undefined);
        }
      } else if (entry.type === "symlink") {
        counts.symlinks++;
      } else {
        counts.special++;
      }
    }
    return undefined;
  };
  const bound = await walk(start, [], 1);
  return { bound: bound ?? (depthCut ? "depth" : undefined), counts };
}

/** Opens a child directory; undefined when it was swapped for a link (or vanished) since the listing. */
async function openChild(io: FsPort, dir: number, name: string): Promise<number | undefined> {
  try {
    return await io.openDir(dir, name);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP" || code === "ENOTDIR" || code === "ENOENT") return undefined;
    throw error;
  }
}
