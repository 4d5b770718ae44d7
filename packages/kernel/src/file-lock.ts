import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";

/**
 * Runs `body` holding an exclusive lock file beside `target` (`<target>.lock`), across processes.
 * The lock is created with `O_EXCL` and holds the owner's PID; it is held for one append, so a
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
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function tryCreate(lock: string): boolean {
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
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
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
