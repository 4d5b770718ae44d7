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

export interface WalkHooks {
  /** A link or a special file seen in a listing (also counted in `counts`). */
  readonly onSkip?: (kind: "symlinks" | "special") => void;
  /** Releases a directory once its walk is over; the default closes it at once. */
  readonly closeDir?: (dir: number) => Promise<void>;
}

/**
 * Called, instead of a file visitor, with each run of consecutive regular files of a directory
 * (`relative` is the directory's path); runs and the walk's other events keep walk order.
 */
export type RunVisitor = (
  dir: number,
  names: string[],
  relative: readonly string[],
) => Promise<Bound | undefined>;

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
  visit: FileVisitor | { readonly runs: RunVisitor },
  limits: WalkLimits,
  yielder: Yielder,
  hooks: WalkHooks = {},
): Promise<{ bound: Bound | undefined; counts: WalkCounts }> {
  const closeDir = hooks.closeDir ?? ((dir: number) => io.close(dir).catch(() => undefined));
  const counts: WalkCounts = { directories: 0, entries: 0, symlinks: 0, special: 0 };
  let depthCut = false;
  const runs = typeof visit === "function" ? undefined : visit.runs;
  const walk = async (dir: number, relative: string[], depth: number): Promise<Bound | undefined> => {
    counts.directories++;
    const entries = byteOrder(await io.list(dir));
    let run: string[] = [];
    const flush = async () => {
      if (!runs || run.length === 0) return undefined;
      const names = run;
      run = [];
      return runs(dir, names, relative);
    };
    for (const entry of entries) {
      if (yielder.due()) await yielder.pause();
      if (limits.maxEntries !== undefined && counts.entries >= limits.maxEntries)
        return (await flush()) ?? "entries";
      counts.entries++;
      if (entry.type === "file") {
        if (runs) run.push(entry.name);
        else {
          const bound = await (visit as FileVisitor)(dir, entry.name, [...relative, entry.name]);
          if (bound) return bound;
        }
        continue;
      }
      const flushed = await flush();
      if (flushed) return flushed;
      const path = [...relative, entry.name];
      if (entry.type === "directory") {
        if (limits.usefulDepth !== undefined && depth >= limits.usefulDepth) continue;
        if (limits.maxDepth !== undefined && depth >= limits.maxDepth) {
          depthCut = true;
          continue;
        }
        const child = await openChild(io, dir, entry.name);
        if (child === undefined) {
          counts.symlinks++;
          hooks.onSkip?.("symlinks");
          continue;
        }
        try {
          const bound = await walk(child, path, depth + 1);
          if (bound) return bound;
        } finally {
          await closeDir(child);
        }
      } else if (entry.type === "symlink") {
        counts.symlinks++;
        hooks.onSkip?.("symlinks");
      } else {
        counts.special++;
        hooks.onSkip?.("special");
      }
    }
    return flush();
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
