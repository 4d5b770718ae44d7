import {
  closeSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";

/**
 * Runs `body` holding an exclusive lock file beside `target` (`<target>.lock`), across processes.
 * The lock is a hard link to a file holding the owner's PID, written once per process and thread
 * (`<target>.lock.owner-<pid>-<thread>`): `link(2)` fails with `EEXIST` while someone holds it, and
 * one `link` plus one `unlink` per append cost far less than creating, writing and closing a file
 * each time. Where the file system has no hard links, the lock is created with `O_EXCL` instead; the
 * two kinds exclude each other, since both claim the one name. It is held for one append, so a
 * waiter spins briefly. A lock whose owner is gone (killed mid-append) is taken over: it is moved
 * aside under a unique name first, so two waiters cannot both remove it, and put back if what was
 * moved turns out to be a live owner's. After `timeoutMs` the body runs without the lock rather
 * than dropping the record. Returns whether the lock was held.
 */
export function withFileLock<T>(
  target: string,
  body: () => T,
  timeoutMs = 10_000,
): { value: T; locked: boolean } {
  const lock = `${target}.lock`;
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  while (!tryCreate(lock)) {
    if (Date.now() > deadline) return { value: body(), locked: false };
    if (!takeOverIfStale(lock)) {
      sleepSync(delay);
      delay = Math.min(delay * 2, 20);
    }
  }
  try {
    return { value: body(), locked: true };
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Taken over by a waiter that judged us gone; nothing left to release.
    }
  }
}

const OWNER = `${process.pid}\n`;
const OWNER_SUFFIX = ".owner-";
const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** This thread's owner file for each lock it has taken, removed when the thread exits. */
const ownerFiles = new Map<string, string>();
/** Errors of `link(2)` on a file system that keeps no hard links. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK", "EXDEV"]);
let linksUnsupported = false;
let exitHookInstalled = false;

function tryCreate(lock: string): boolean {
  if (linksUnsupported) return tryCreateExclusive(lock);
  for (let attempt = 0; ; attempt++) {
    try {
      linkSync(ownerFileFor(lock), lock);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      if (code === "EEXIST") return false;
      // Someone removed our owner file (a temp-directory sweep): write it again, once.
      if (code === "ENOENT" && attempt === 0 && ownerFiles.delete(lock)) continue;
      if (NO_HARD_LINKS.has(code)) {
        linksUnsupported = true;
        return tryCreateExclusive(lock);
      }
      throw error;
    }
  }
}

function tryCreateExclusive(lock: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, OWNER);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * The owner file this thread links as `lock`, written whole before its first use, so a lock is
 * never seen without its PID. The first time, owner files that dead processes left (a SIGKILL
 * skips the exit hook) are swept.
 */
function ownerFileFor(lock: string): string {
  const known = ownerFiles.get(lock);
  if (known !== undefined) return known;
  const path = `${lock}${OWNER_SUFFIX}${process.pid}-${threadId()}`;
  writeFileSync(path, OWNER, { mode: 0o600 });
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", removeOwnerFiles);
  }
  ownerFiles.set(lock, path);
  sweepDeadOwnerFiles(lock);
  return path;
}

function removeOwnerFiles(): void {
  for (const path of ownerFiles.values()) {
    try {
      unlinkSync(path);
    } catch {}
  }
  ownerFiles.clear();
}

function sweepDeadOwnerFiles(lock: string): void {
  const prefix = `${basename(lock)}${OWNER_SUFFIX}`;
  let names: string[];
  try {
    names = readdirSync(dirname(lock));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    // A hard link: removing it leaves a lock linked to the same file in place.
    try {
      unlinkSync(join(dirname(lock), name));
    } catch {}
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Takes over a lock whose owner is dead; true when the caller should retry at once. */
function takeOverIfStale(lock: string): boolean {
  const seen = ownerOf(lock);
  if (seen === undefined || !isStale(lock, seen)) return false;
  const aside = `${lock}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(lock, aside);
  } catch {
    return true; // Someone else moved or released it first.
  }
  if (readText(aside) !== seen) {
    // Between our look and our move, a live owner took the lock: give it back.
    try {
      linkSync(aside, lock);
    } catch {
      // A third process holds the lock now; the moved owner finishes unaware, as before.
    }
  }
  try {
    unlinkSync(aside);
  } catch {}
  return true;
}

function isStale(lock: string, owner: string): boolean {
  const pid = Number.parseInt(owner, 10);
  if (!Number.isInteger(pid) || pid <= 0) {
    // Created but its PID not written yet, or garbage: stale only once it has been so a while.
    try {
      return Date.now() - statSync(lock).mtimeMs > 1_000;
    } catch {
      return false;
    }
  }
  return pid !== process.pid && !isAlive(pid);
}

function ownerOf(lock: string): string | undefined {
  return readText(lock);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * This thread's id, from node:worker_threads loaded on the first lock: a command that takes no lock
 * (`pablo tools`, `pablo --help`) does not pay the module's load.
 */
function threadId(): number {
  return (createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads"))
    .threadId;
}
