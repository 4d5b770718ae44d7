import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { sharedScanPool } from "../walk/scan-pool.js";
import { type DirEntry, type EntryInfo, type EntryType, type FsPort, PortError } from "./types.js";

const PROC_FD = "/proc/self/fd";
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

export interface LocalFsOptions {
  /**
   * Milliseconds a search works on the calling thread before it starts the worker threads (default
   * {@link SCAN_STARTUP_MS}); it goes on scanning there until they are up, then queues batches that
   * the workers and the calling thread take as they get free. 0 queues every batch at once.
   */
  readonly scanStartupMs?: number | undefined;
}

/** A search done within this many milliseconds never starts the search worker threads. */
export const SCAN_STARTUP_MS = 5;

/**
 * The local disk on Linux. Node has no `openat`, so a component is opened relative to its parent
 * through `/proc/self/fd/<dirfd>/<name>`: the kernel resolves the directory from the descriptor and
 * `O_NOFOLLOW` applies to the one component. Calls are synchronous system calls on bounded work
 * (one component, one chunk), so callers yield between them; a page-cache read of a chunk is
 * cheaper than a thread-pool round trip.
 */
export function createLocalFs(options: LocalFsOptions = {}): FsPort {
  if (!existsSync(PROC_FD)) {
    throw new PortError("ENOSYS", "the local filesystem port needs Linux /proc/self/fd");
  }
  const startup = options.scanStartupMs ?? SCAN_STARTUP_MS;
  if (startup === SCAN_STARTUP_MS) return localFs;
  return { ...localFs, scanReady: (searchedMs) => scanReady(searchedMs, startup) };
}

/**
 * Past `startup`, starts the pool; true once its threads are up, the calling thread scanning alone
 * until then (at once when `startup` is 0: the calling thread then takes queued batches itself,
 * through `scanQueued`, until the threads are up).
 */
function scanReady(searchedMs: number, startup: number): boolean {
  const pool = sharedScanPool();
  if (pool.ready) return true;
  if (searchedMs < startup) return false;
  pool.start();
  return startup <= 0;
}

const at = (dir: number, name: string): string => `${PROC_FD}/${dir}/${name}`;

const localFs: FsPort = {
  kind: "local",

  async openRoot(path) {
    const canonical = realpathSync.native(path);
    const handle = openSync(canonical, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
    // A swap between realpath and open would leave the handle somewhere else; the descriptor's own
    // path says where it really is.
    const opened = readlinkSync(`${PROC_FD}/${handle}`);
    if (opened !== canonical) {
      closeSync(handle);
      throw new PortError("ESTALE", `${path} moved while it was opened`);
    }
    return { handle, canonical };
  },

  async canonicalize(path) {
    if (!isAbsolute(path)) throw new PortError("EINVAL", `not an absolute path: ${path}`);
    const missing: string[] = [];
    let current = path;
    for (;;) {
      try {
        return join(realpathSync.native(current), ...missing.reverse());
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOENT" || current === "/") throw error;
        missing.push(basename(current));
        current = dirname(current);
      }
    }
  },

  async ensureDirectory(path, mode) {
    mkdirSync(path, { recursive: true, mode });
  },

  async lstat(dir, name) {
    const stats = lstatSync(at(dir, name), { throwIfNoEntry: false });
    return stats ? info(stats) : undefined;
  },

  async readlink(dir, name) {
    return readlinkSync(at(dir, name));
  },

  async openDir(dir, name) {
    return openSync(at(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
  },

  async list(dir) {
    return readdirSync(`${PROC_FD}/${dir}`, { withFileTypes: true }).map(
      (entry): DirEntry => ({ name: entry.name, type: direntType(entry) }),
    );
  },

  async openFile(dir, name) {
    const handle = openSync(at(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const stats = info(fstatSync(handle));
    if (stats.type !== "file") {
      closeSync(handle);
      throw new PortError("ENOTREG", `${name} is a ${stats.type}, not a regular file`);
    }
    return { handle, info: stats };
  },

  async fstat(handle) {
    return info(fstatSync(handle));
  },

  async read(handle, buffer, offset, length, position) {
    return readSync(handle, buffer, offset, length, position);
  },

  async createExclusive(dir, name, mode) {
    return openSync(at(dir, name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  },

  async write(handle, data) {
    let written = 0;
    while (written < data.length) written += writeSync(handle, data, written, data.length - written);
  },

  async chmod(handle, mode) {
    fchmodSync(handle, mode);
  },

  async sync(handle) {
    fsyncSync(handle);
  },

  async close(handle) {
    closeSync(handle);
  },

  async rename(dir, from, to) {
    renameSync(at(dir, from), at(dir, to));
  },

  async link(dir, from, to) {
    linkSync(at(dir, from), at(dir, to));
  },

  async unlink(dir, name) {
    unlinkSync(at(dir, name));
  },

  async mkdir(dir, name, mode) {
    mkdirSync(at(dir, name), { mode });
  },

  async rmdir(dir, name) {
    rmdirSync(at(dir, name));
  },

  scanFiles(dir, names, request) {
    return sharedScanPool().run({ dir, names, ...request }, request);
  },

  scanReady(searchedMs) {
    return scanReady(searchedMs, SCAN_STARTUP_MS);
  },

  scanQueued(pacer, spare) {
    return sharedScanPool().scanHere(pacer, spare);
  },

  cancelScans(request) {
    sharedScanPool().cancel(request);
  },
};

function info(stats: Stats): EntryInfo {
  return {
    type: statsType(stats),
    size: stats.size,
    mode: stats.mode & 0o7777,
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    dev: stats.dev,
    ino: stats.ino,
  };
}

interface TypeProbe {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}

function statsType(probe: TypeProbe): EntryType {
  if (probe.isFile()) return "file";
  if (probe.isDirectory()) return "directory";
  if (probe.isSymbolicLink()) return "symlink";
  if (probe.isFIFO()) return "fifo";
  if (probe.isSocket()) return "socket";
  if (probe.isCharacterDevice()) return "char-device";
  if (probe.isBlockDevice()) return "block-device";
  return "unknown";
}

const direntType = statsType;
