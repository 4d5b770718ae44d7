import { existsSync } from "node:fs";
import { constants, type FileHandle, lstat, open, opendir, realpath } from "node:fs/promises";
import { join } from "node:path";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
const PROC_FD = "/proc/self/fd";
const CHUNK = 64 * 1024;

/** Why a path could not be opened the way discovery needs it. */
export interface FsRefusal {
  readonly refused: "missing" | "symlink" | "not-directory" | "special" | "io";
  readonly detail: string;
}

/**
 * An open directory. On Linux its children are opened through `/proc/self/fd/<fd>/<name>`, so a
 * folder renamed or replaced by a link after it was opened cannot redirect the open; elsewhere
 * the path is used again and only the last component is protected by `O_NOFOLLOW`.
 */
export interface OpenDirectory {
  /** Canonical absolute path, for reports. */
  readonly path: string;
  /** The path through which this directory's own entries are opened. */
  readonly self: string;
  close(): Promise<void>;
}

/** One entry of a directory listing, classified without following links. */
export interface DirEntry {
  readonly name: string;
  readonly kind: "directory" | "symlink" | "file" | "other";
}

/** An open regular file and its size when opened. */
export interface OpenFile {
  readonly handle: FileHandle;
  readonly size: number;
}

/**
 * Opens a directory without following a link at `path` itself. `via` opens it relative to an
 * already-open parent (see {@link childPath}); `path` is then only the name used in reports.
 */
export async function openDirectory(path: string, via?: string): Promise<OpenDirectory | FsRefusal> {
  let handle: FileHandle;
  try {
    handle = await open(via ?? path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    return classify(error, via ?? path, true);
  }
  const self = useProcFd() ? `${PROC_FD}/${handle.fd}` : path;
  let canonical = path;
  if (via === undefined) {
    try {
      canonical = await realpath(self);
    } catch (error) {
      await handle.close();
      return classify(error, path, true);
    }
  }
  return { path: canonical, self, close: () => handle.close() };
}

/** The path through which `name` inside `dir` is opened. */
export function childPath(dir: OpenDirectory, name: string): string {
  return join(dir.self, name);
}

/**
 * Lists at most `max` entries (plus one, so the caller can tell there were more), sorted by name
 * so that discovery is deterministic.
 */
export async function listDirectory(dir: OpenDirectory, max: number): Promise<DirEntry[] | FsRefusal> {
  const entries: DirEntry[] = [];
  try {
    const handle = await opendir(dir.self);
    try {
      for await (const entry of handle) {
        const kind = entry.isSymbolicLink()
          ? "symlink"
          : entry.isDirectory()
            ? "directory"
            : entry.isFile()
              ? "file"
              : "other";
        entries.push({ name: entry.name, kind });
        if (entries.length > max) break;
      }
    } finally {
      // Breaking out of `for await` already closed it; closing twice throws ERR_DIR_CLOSED.
      await handle.close().catch(() => undefined);
    }
  } catch (error) {
    return classify(error, dir.path, true);
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Opens a regular file without following a link at its last component, without blocking on a
 * FIFO, and refuses anything that is not a regular file.
 */
export async function openRegularFile(path: string): Promise<OpenFile | FsRefusal> {
  let handle: FileHandle;
  try {
    handle = await open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    return classify(error, path, false);
  }
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    const what = stats.isDirectory() ? "a directory" : stats.isFIFO() ? "a FIFO" : "not a regular file";
    return { refused: "special", detail: what };
  }
  return { handle, size: stats.size };
}

export interface PrefixOptions {
  /** Bytes asked for per read (default 64 KiB). */
  readonly chunkBytes?: number;
  /**
   * Called with everything read so far after each read; `true` stops reading there, so a caller
   * that needs only a head (the frontmatter) reads that head plus less than one chunk.
   */
  readonly until?: (bytes: Buffer) => boolean;
}

/**
 * Reads from the start of the file up to `limit` bytes; `more` says whether bytes may remain
 * (always true when `until` stopped the read, since the end was not looked for).
 */
export async function readPrefix(
  file: OpenFile,
  limit: number,
  options: PrefixOptions = {},
): Promise<{ bytes: Buffer; more: boolean }> {
  const chunkBytes = options.chunkBytes ?? CHUNK;
  const chunks: Buffer[] = [];
  let total = 0;
  // One byte past the limit tells a file that is exactly `limit` long from a longer one.
  while (total <= limit) {
    const want = Math.min(chunkBytes, limit + 1 - total);
    const chunk = Buffer.allocUnsafe(want);
    const { bytesRead } = await file.handle.read(chunk, 0, want, total);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (options.until && total <= limit) {
      const sofar = Buffer.concat(chunks, total);
      if (options.until(sofar)) return { bytes: sofar, more: true };
    }
  }
  const all = Buffer.concat(chunks, total);
  return total > limit ? { bytes: all.subarray(0, limit), more: true } : { bytes: all, more: false };
}

export function isRefusal(value: unknown): value is FsRefusal {
  return typeof value === "object" && value !== null && "refused" in value;
}

let procFd: boolean | undefined;
function useProcFd(): boolean {
  procFd ??= process.platform === "linux" && existsSync(PROC_FD);
  return procFd;
}

async function classify(error: unknown, path: string, wantDirectory: boolean): Promise<FsRefusal> {
  const code = (error as NodeJS.ErrnoException).code;
  const detail = error instanceof Error ? error.message : String(error);
  if (code === "ENOENT") return { refused: "missing", detail };
  if (code === "ELOOP") return { refused: "symlink", detail };
  if (code === "ENXIO" || code === "EISDIR") return { refused: "special", detail };
  if (code === "ENOTDIR" && wantDirectory) {
    // O_DIRECTORY | O_NOFOLLOW on a link gives ENOTDIR on Linux: tell a link from a file.
    const link = await lstat(path).then(
      (s) => s.isSymbolicLink(),
      () => false,
    );
    return link ? { refused: "symlink", detail } : { refused: "not-directory", detail };
  }
  return { refused: "io", detail };
}
