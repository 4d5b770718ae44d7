import type { LineMatch } from "../walk/lines.js";

/**
 * The filesystem port every fs tool runs on. Handles are small integers owned by the port. Every
 * method that takes `(dir, name)` resolves `name` as ONE component relative to the open directory
 * `dir` and never follows a symbolic link at that component: this is what makes the check and the
 * use the same operation.
 *
 * Contract: methods reject with a {@link PortError} carrying a POSIX-style `code` (`ENOENT`,
 * `ELOOP` for a link where none is followed, `ENOTDIR`, `EEXIST`, `EISDIR`, `ENOTREG` for something
 * that is not a regular file, ...). They never block on a FIFO or device.
 */
export interface FsPort {
  /** `local` runs on the disk through `/proc/self/fd`; `memory` is seed 003's virtual sandbox. */
  readonly kind: string;

  /** Host-only: opens an absolute directory, following links, and returns its canonical path. */
  openRoot(path: string): Promise<{ handle: number; canonical: string }>;
  /** Host-only: the canonical form of an absolute path whose leaf may not exist yet. */
  canonicalize(path: string): Promise<string>;
  /** Host-only: creates an absolute directory and its missing parents. */
  ensureDirectory(path: string, mode: number): Promise<void>;

  /** What `name` is, without following it; undefined when absent. */
  lstat(dir: number, name: string): Promise<EntryInfo | undefined>;
  readlink(dir: number, name: string): Promise<string>;
  /** Opens a child directory; a link there fails with `ELOOP` or `ENOTDIR`. */
  openDir(dir: number, name: string): Promise<number>;
  /** Children in no particular order, with types read without following links. */
  list(dir: number): Promise<DirEntry[]>;
  /** Opens a regular file for reading without following a link and without blocking; checks it with fstat. */
  openFile(dir: number, name: string): Promise<{ handle: number; info: EntryInfo }>;
  fstat(handle: number): Promise<EntryInfo>;
  /** Reads up to `length` bytes at `position` into `buffer` at `offset`; 0 at end of file. */
  read(handle: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;

  /** Creates `name` exclusively for writing (`O_CREAT | O_EXCL | O_NOFOLLOW`) with `mode`. */
  createExclusive(dir: number, name: string, mode: number): Promise<number>;
  write(handle: number, data: Uint8Array): Promise<void>;
  chmod(handle: number, mode: number): Promise<void>;
  sync(handle: number): Promise<void>;
  close(handle: number): Promise<void>;
  /** Atomically replaces `to` with `from`, both in `dir`. */
  rename(dir: number, from: string, to: string): Promise<void>;
  /** Hard-links `from` as `to` in `dir`; fails with `EEXIST` when `to` exists (atomic create-if-absent). */
  link(dir: number, from: string, to: string): Promise<void>;
  unlink(dir: number, name: string): Promise<void>;
  mkdir(dir: number, name: string, mode: number): Promise<void>;
  rmdir(dir: number, name: string): Promise<void>;

  /**
   * Optional: searches many regular files of one open directory at once, off the main thread.
   * Contract: opens each name exactly as `openFile` does (one component, no link followed, checked
   * with fstat) and reports files over `request.largeBytes` as `defer` for the caller to scan.
   */
  scanFiles?(dir: number, names: readonly string[], request: ScanRequest): Promise<BatchScan>;
  /**
   * Optional, with `scanFiles`: whether a search `searchedMs` into its work should hand files to
   * `scanFiles` now. A search asks as it goes and scans on the calling thread while the answer is
   * false, so a small tree never waits for threads to start; the port may start them when asked and
   * say true once they are up. Absent: `scanFiles` is used from the first file.
   */
  scanReady?(searchedMs: number): boolean;
  /**
   * Optional, with `scanFiles`: scans on the calling thread the oldest batch given to `scanFiles`
   * that no worker has taken yet (so it is answered from here), pausing when `pacer` says so;
   * resolves false when none was left. With `spare`, a batch is taken only while enough would be
   * left to keep the workers busy (for a caller with other work to do, such as walking on).
   * Contract: scans exactly as `scanFiles` does.
   */
  scanQueued?(pacer: Pacer, spare: boolean): Promise<boolean>;
  /**
   * Optional, with `scanFiles`: drops the batches made with this `request` object that nobody has
   * taken; their promises reject and their files are never opened (a stopped search's leftovers).
   */
  cancelScans?(request: ScanRequest): void;
}

/** Long work on the calling thread asks `due()` between steps and awaits `pause()` when it says so. */
export interface Pacer {
  /** Whether the work's time slice is used up; throws once the work is cancelled. */
  due(): boolean;
  pause(): Promise<void>;
}

/** What to look for in a batch of files. */
export interface ScanRequest {
  readonly query: string;
  /** Most matching lines to report per file. */
  readonly maxLines: number;
  /** Files over this many bytes are skipped as `large` (the file-bytes quota). */
  readonly fileBytes: number | undefined;
  /** Files over this many bytes are left to the caller as `defer`. */
  readonly largeBytes: number;
}

/** How each file of a batch fared, by index: {@link ScanStatus}. */
export interface BatchScan {
  readonly statuses: ScanStatus[];
  /** Bytes read from each file (0 unless scanned). */
  readonly bytes: number[];
  /** The files that matched (or turned out binary), by index. */
  readonly found: { readonly index: number; readonly binary: boolean; readonly matches: LineMatch[] }[];
  readonly errors: { readonly index: number; readonly code: string; readonly message: string }[];
}

/** 0 scanned, 1 a link, 2 not a regular file, 3 vanished, 4 over the file-bytes quota, 5 deferred to the caller, 6 error. */
export type ScanStatus = 0 | 1 | 2 | 3 | 4 | 5 | 6;
export type EntryType =
  | "file"
  | "directory"
  | "symlink"
  | "fifo"
  | "socket"
  | "char-device"
  | "block-device"
  | "unknown";

export interface EntryInfo {
  readonly type: EntryType;
  readonly size: number;
  /** Permission bits (`mode & 0o7777`). */
  readonly mode: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** Identity of the underlying object, for change detection. */
  readonly dev: number;
  readonly ino: number;
}

export interface DirEntry {
  readonly name: string;
  readonly type: EntryType;
}

/** A port failure with a POSIX-style code. */
export class PortError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "PortError";
    this.code = code;
  }
}

/** The POSIX-style code of a thrown port or Node error, or undefined. */
export function errorCode(error: unknown): string | undefined {
  if (error !== null && typeof error === "object" && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}
