import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  opendirSync,
  openSync,
  rmdirSync,
  unlinkSync,
} from "node:fs";
import type { DirEntry } from "../port/types.js";
import { byteOrder } from "../walk/order.js";

export interface ReviewSweepOptions {
  /** Whether a session still exists; the store of a session that does not is removed. */
  readonly isLive?: ((sessionId: string) => boolean) | undefined;
  /** Stores untouched for longer are removed whatever `isLive` says (default 7 days). */
  readonly maxAgeMs?: number | undefined;
  readonly now?: number | undefined;
  /** Most directory entries one sweep looks at or removes (default 100,000); the rest waits for the next start. */
  readonly maxEntries?: number | undefined;
}

export const STALE_REVIEW_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_SWEEP_ENTRIES = 100_000;

const PROC_FD = "/proc/self/fd";
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * The startup sweep of review snapshots (seed 001 4c, the review twin of `sweepScratch`): removes
 * the session stores directly under `baseDir` (`<baseDir>/<sessionId>`) whose session `isLive`
 * says is gone, and those whose newest modification time (the directory or anything in it) is
 * older than `maxAgeMs`. Returns the session IDs removed, in byte order.
 *
 * Contract: never deletes outside `baseDir` and never follows a link below it. Every directory is
 * opened relative to its parent's descriptor with `O_NOFOLLOW`, and every removal names one
 * component in an open directory (`/proc/self/fd`, as the local port does), so a store swapped for
 * a link mid-sweep makes the open fail instead of redirecting it; links inside a store are removed
 * as links. Entries at the top that are not directories are left alone. Work is bounded by
 * `maxEntries`: a store is judged stale only after all of it was looked at, and a sweep that runs
 * out stops where it is (a store half removed is finished next time). Linux only. Modification
 * times decide, not change times: only the host writes a store, and a copy or restore keeps mtimes.
 * The legacy form `sweepReviewStores(baseDir, isLive)` is `{ isLive }`.
 */
export function sweepReviewStores(
  baseDir: string,
  options: ReviewSweepOptions | ((sessionId: string) => boolean) = {},
): string[] {
  const { isLive, maxAgeMs, now, maxEntries } = typeof options === "function" ? { isLive: options } : options;
  let base: number;
  try {
    // The base itself is the host's configured path and may be reached through a link.
    base = openSync(baseDir, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return [];
    throw error;
  }
  const budget = { left: maxEntries ?? DEFAULT_SWEEP_ENTRIES };
  const cutoff = (now ?? Date.now()) - (maxAgeMs ?? STALE_REVIEW_MS);
  const removed: string[] = [];
  try {
    for (const { name } of byteOrder(listed(base, budget.left))) {
      if (--budget.left < 0) break;
      const outcome = sweepOne(base, name, { gone: isLive ? !isLive(name) : false, cutoff, budget });
      if (outcome === "removed") removed.push(name);
      if (outcome === "out-of-budget") break;
    }
  } finally {
    closeSync(base);
  }
  return removed;
}

type Outcome = "kept" | "removed" | "out-of-budget";

function sweepOne(
  base: number,
  name: string,
  how: { gone: boolean; cutoff: number; budget: { left: number } },
): Outcome {
  try {
    if (!lstatSync(at(base, name)).isDirectory()) return "kept";
    if (!how.gone) {
      const newest = newestModification(base, name, how.budget);
      if (newest === undefined) return "out-of-budget";
      if (newest >= how.cutoff) return "kept";
    }
    return removeTree(base, name, how.budget) ? "removed" : "out-of-budget";
  } catch {
    // Vanished, swapped for a link, or not ours to remove: left for a person (or the next start).
    return "kept";
  }
}

/** Newest mtime of `name` (a directory in `parent`) and everything below it; undefined when the budget ran out. */
function newestModification(parent: number, name: string, budget: { left: number }): number | undefined {
  const dir = openDirectory(parent, name);
  try {
    let newest = fstatSync(dir).mtimeMs;
    for (const entry of listed(dir, budget.left)) {
      if (--budget.left < 0) return undefined;
      const stats = lstatSync(at(dir, entry.name), { throwIfNoEntry: false });
      if (!stats) continue;
      newest = Math.max(newest, stats.mtimeMs);
      if (stats.isDirectory()) {
        const below = newestModification(dir, entry.name, budget);
        if (below === undefined) return undefined;
        newest = Math.max(newest, below);
      }
    }
    return newest;
  } finally {
    closeSync(dir);
  }
}

/** Removes `name` (a directory in `parent`) and its contents, one component at a time; false when the budget ran out. */
function removeTree(parent: number, name: string, budget: { left: number }): boolean {
  const dir = openDirectory(parent, name);
  try {
    for (const entry of listed(dir, budget.left)) {
      if (--budget.left < 0) return false;
      const stats = lstatSync(at(dir, entry.name), { throwIfNoEntry: false });
      if (!stats) continue;
      if (stats.isDirectory()) {
        if (!removeTree(dir, entry.name, budget)) return false;
      } else {
        // A link is removed as a link: unlink never follows the last component.
        unlinkSync(at(dir, entry.name));
      }
    }
  } finally {
    closeSync(dir);
  }
  rmdirSync(at(parent, name));
  return true;
}

function openDirectory(parent: number, name: string): number {
  return openSync(at(parent, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
}

/** At most `limit + 1` names of an open directory: enough to exhaust the budget, never a whole huge listing. */
function listed(dir: number, limit: number): DirEntry[] {
  const names: DirEntry[] = [];
  const handle = opendirSync(`${PROC_FD}/${dir}`);
  try {
    for (let entry = handle.readSync(); entry !== null && names.length <= limit; entry = handle.readSync()) {
      names.push({ name: entry.name, type: "unknown" });
    }
  } finally {
    handle.closeSync();
  }
  return names;
}

function at(dir: number, name: string): string {
  return `${PROC_FD}/${dir}/${name}`;
}

function codeOf(error: unknown): string | undefined {
  return error !== null && typeof error === "object" && "code" in error ? String(error.code) : undefined;
}
