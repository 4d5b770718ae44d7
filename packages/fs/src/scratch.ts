import { existsSync, lstatSync, readdirSync, rmSync } from "node:fs";
import { isAbsolute, join, resolve as resolvePath } from "node:path";
import { PabloError } from "@pablo/kernel";
import { FsErrorCode } from "./errors.js";

/**
 * A session's scratch directory (seed 001, 4b): `<dataDir>/scratch/<sessionId>`, outside the
 * workspace, addressed by absolute path, created (mode 0700) on the first write into it and removed
 * with the session.
 */
export interface ScratchRoot {
  /** Absolute path; the tools canonicalize it at admission. */
  readonly path: string;
  readonly sessionId: string;
  /** Removes the directory and everything in it (session end). Contract: never throws for a missing directory. */
  remove(): void;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const STALE_SCRATCH_MS = 7 * 24 * 60 * 60 * 1000;

/** The scratch root of one session. Nothing is created until a tool writes into it. */
export function createScratchRoot(dataDir: string, sessionId: string): ScratchRoot {
  if (!SESSION_ID.test(sessionId)) {
    throw new PabloError(
      FsErrorCode.INVALID_SESSION_ID,
      `a scratch directory needs a plain session ID, got ${JSON.stringify(sessionId)}`,
    );
  }
  const path = join(resolvePath(dataDir), "scratch", sessionId);
  return { path, sessionId, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Two sentences for the system prompt (seed 001 4b: "the path is advertised in the system prompt"):
 * where the session scratch directory is, that it is addressed by absolute path while relative
 * paths resolve against the workspace, and that writes there need no approval. Pass the path the
 * tools were given (`ScratchRoot.path`). Throws `INVALID_SCRATCH` for a relative path or one with
 * control characters, which would not survive being pasted into a prompt.
 */
export function scratchNotice(scratchPath: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (!isAbsolute(scratchPath) || /[\u0000-\u001f\u007f]/.test(scratchPath)) {
    throw new PabloError(
      FsErrorCode.INVALID_SCRATCH,
      `the scratch notice needs an absolute path without control characters, got ${JSON.stringify(scratchPath)}`,
    );
  }
  return (
    `Your session scratch directory is ${scratchPath}: put temporary files there (one-off scripts, downloads, ` +
    "drafts) by that absolute path, and writing there needs no approval. Relative paths always resolve against " +
    "the workspace, never against the scratch directory."
  );
}

export interface SweepOptions {
  /** Whether a session still exists; a directory of a session that does not is removed. */
  readonly isLive?: (sessionId: string) => boolean;
  /** Directories untouched for longer are removed whatever `isLive` says (default 7 days). */
  readonly maxAgeMs?: number;
  readonly now?: number;
}

/**
 * The startup sweep: removes scratch directories whose session is gone and those untouched for
 * over `maxAgeMs` (the crash and force-quit fallback). "Touched" is the newest change time of the
 * directory or anything in it, found without following links.
 */
export function sweepScratch(dataDir: string, options: SweepOptions = {}): string[] {
  const base = join(resolvePath(dataDir), "scratch");
  if (!existsSync(base)) return [];
  const now = options.now ?? Date.now();
  const maxAge = options.maxAgeMs ?? STALE_SCRATCH_MS;
  const removed: string[] = [];
  for (const entry of readdirSync(base, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(base, entry.name);
    const gone = options.isLive ? !options.isLive(entry.name) : false;
    if (gone || now - newestChange(dir) > maxAge) {
      rmSync(dir, { recursive: true, force: true });
      removed.push(entry.name);
    }
  }
  return removed;
}

function newestChange(path: string, budget = { entries: 100_000 }): number {
  const stats = lstatSync(path);
  let newest = Math.max(stats.mtimeMs, stats.ctimeMs);
  if (!stats.isDirectory() || budget.entries <= 0) return newest;
  for (const name of readdirSync(path)) {
    if (--budget.entries <= 0) break;
    newest = Math.max(newest, newestChange(join(path, name), budget));
  }
  return newest;
}
