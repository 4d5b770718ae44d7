import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { ReviewStore, sweepReviewStores, sweepScratch } from "@pablo/fs";
import { type AuthorityLayer, defineLayer } from "@pablo/kernel";
import { AdmissionFailure } from "./admission.js";
import { CliErrorCode } from "./error-codes.js";

/**
 * Where one task keeps what the model must not reach: session scratch, review snapshots and the
 * audit log.
 *
 * Scratch and review snapshots must lie outside the workspace (a model that could edit a snapshot
 * could forge a rollback). They live in the state directory unless the workspace contains it, as
 * it does for a task run from the home directory; then they move to a private directory under the
 * system temporary directory. The review snapshots, the audit log and (when it lies inside the
 * workspace) the whole state directory are denied to every fs tool by a distribution layer, so even an approved outside-path request or
 * `auto` cannot read or rewrite them.
 */
export interface TaskStorage {
  /** Parent of `scratch/<sessionId>`. */
  readonly dataDir: string;
  readonly reviewsDir: string;
  /** Set when scratch and reviews moved out of the state directory, with the reason. */
  readonly relocated: string | undefined;
  /** Denies fs reads and writes of the state directory, the reviews and the audit log. */
  readonly layer: AuthorityLayer;
}

/** Stable code of the one placement failure: every candidate lies inside the workspace. */
export const STORAGE_INSIDE_WORKSPACE = CliErrorCode.STORAGE_INSIDE_WORKSPACE;

export function taskStorage(options: {
  readonly stateDir: string;
  readonly workspace: string;
  readonly auditPath: string;
}): TaskStorage {
  const { workspace } = options;
  const stateDir = canonicalish(options.stateDir);
  let base = stateDir;
  let relocated: string | undefined;
  if (isWithin(stateDir, workspace)) {
    base = privateTempDir();
    relocated = `the state directory ${stateDir} lies inside the workspace ${workspace}`;
    if (isWithin(base, workspace)) {
      throw new AdmissionFailure(
        `the workspace ${workspace} contains both the state directory ${stateDir} and the temporary directory ${base}; choose a narrower --workspace or set XDG_STATE_HOME outside it`,
        STORAGE_INSIDE_WORKSPACE,
      );
    }
  }
  const dataDir = join(base, "data");
  const reviewsDir = join(base, "reviews");
  // The scratch root lives in the state directory unless relocated, so only a relocated state
  // directory is denied whole.
  const denied: Array<[string, string]> = [
    ...(relocated ? [["state-dir", stateDir] as [string, string]] : []),
    ["reviews", reviewsDir],
    ["audit-log", canonicalish(options.auditPath)],
  ];
  const rules = (verb: string) => denied.map(([name, path]) => ({ id: `pablo-state.${verb}.${name}`, path }));
  const layer = defineLayer({
    id: "distribution.pablo-state",
    description: "Pablo's own state (audit log, review snapshots) is never a tool's to read or write.",
    immutable: true,
    "fs.read": { deny: rules("read") },
    "fs.write": { deny: rules("write") },
  });
  return { dataDir, reviewsDir, relocated, layer };
}

/**
 * Marks a session as running in this process until the returned function releases it, so the
 * startup sweep of another process never removes a live session's scratch directory.
 */
export function claimSession(storage: TaskStorage, sessionId: string): () => void {
  const dir = join(storage.dataDir, "sessions");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, sessionId);
  writeFileSync(file, String(process.pid), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/**
 * The startup sweep of seed 001 4b: removes scratch directories whose session is no longer running
 * (a crash or a kill left them) and those untouched for over seven days, and review stores
 * untouched for over seven days. A CLI session is one process, but its review snapshots must
 * outlive it for a later `pablo review rollback`, so review stores go by age alone.
 */
export function sweepStorage(storage: TaskStorage): { scratch: string[]; reviews: string[] } {
  return {
    scratch: sweepScratch(storage.dataDir, { isLive: (sessionId) => sessionRunning(storage, sessionId) }),
    reviews: sweepReviewStores(storage.reviewsDir),
  };
}

/** The review store of one session: `<reviews>/<sessionId>`. */
export function sessionReviewStore(storage: TaskStorage, sessionId: string): ReviewStore {
  return new ReviewStore(join(storage.reviewsDir, sessionId));
}

/**
 * Every session's review store, oldest session directory first by name, plus the shared store of
 * earlier versions (snapshots written directly in `<reviews>`), so their changes stay listable.
 */
export function allReviewStores(storage: TaskStorage): ReviewStore[] {
  let names: string[] = [];
  try {
    names = readdirSync(storage.reviewsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    // No review was ever recorded.
  }
  return [new ReviewStore(storage.reviewsDir), ...names.map((name) => sessionReviewStore(storage, name))];
}

function sessionRunning(storage: TaskStorage, sessionId: string): boolean {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(join(storage.dataDir, "sessions", sessionId), "utf8"), 10);
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; keep its directory.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether `path` is `root` or lies beneath it, by whole components. */
export function isWithin(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/**
 * `<tmp>/pablo-<uid>`, created mode 0700; refused when it exists as a symlink or belongs to
 * another user (a shared /tmp is writable by everyone).
 */
function privateTempDir(): string {
  const uid = process.getuid?.() ?? 0;
  const dir = join(canonicalish(tmpdir()), `pablo-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = lstatSync(dir);
  if (!stats.isDirectory() || stats.isSymbolicLink() || stats.uid !== uid || (stats.mode & 0o077) !== 0) {
    throw new AdmissionFailure(
      `${dir} is not a private directory of this user (mode 0700); remove it or set XDG_STATE_HOME outside the workspace`,
      STORAGE_INSIDE_WORKSPACE,
    );
  }
  return dir;
}

/** The real path of the nearest existing ancestor, with the rest appended: paths not yet made. */
function canonicalish(path: string): string {
  const absolute = resolve(path);
  let existing = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return absolute;
      rest.push(existing.slice(parent.length).replace(/^\/+/, ""));
      existing = parent;
    }
  }
}
