import { createHash } from "node:crypto";
import type { EntryInfo, FsPort } from "./port/types.js";
import type { Yielder } from "./yielder.js";

/** Bytes read per system call while hashing: large enough to amortize the call, small enough to yield often. */
export const CHUNK_BYTES = 4 * 1024 * 1024;
const ATTEMPTS = 3;

export interface Snapshot {
  /** SHA-256 of every byte of the file, lowercase hex: the file's revision. */
  readonly revision: string;
  readonly size: number;
  readonly info: EntryInfo;
  /** The bytes of `[window.start, window.end)` when a window was asked for. */
  readonly window: Uint8Array | undefined;
  /** Every byte, when `whole` was asked for. */
  readonly bytes: Uint8Array | undefined;
}

export interface SnapshotRequest {
  /** A byte range to keep while hashing (clipped to the file). */
  readonly window?: { readonly start: number; readonly end: number };
  /** Keep every byte (fs.edit, review snapshots). */
  readonly whole?: boolean;
}

/** The file changed while it was being read, in every attempt. */
export class ChangedWhileReading extends Error {
  constructor() {
    super("the file changed while it was being read; try again");
    this.name = "ChangedWhileReading";
  }
}

/**
 * Hashes an open file and keeps the requested bytes, in one pass over the same descriptor, so the
 * revision and the page describe the same bytes. The file's identity, size and change times are
 * compared before and after; a file that changes mid-read is read again (three attempts), since a
 * revision that mixes two versions would let a stale write through.
 */
export async function snapshot(
  io: FsPort,
  handle: number,
  request: SnapshotRequest,
  yielder: Yielder,
): Promise<Snapshot> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = await io.fstat(handle);
    const taken = await readAll(io, handle, before.size, request, yielder);
    const after = await io.fstat(handle);
    if (taken && sameVersion(before, after)) return { ...taken, info: after };
  }
  throw new ChangedWhileReading();
}

/** The same file content by its metadata: identity, size and both change times. */
export function sameVersion(a: EntryInfo, b: EntryInfo): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs
  );
}

async function readAll(
  io: FsPort,
  handle: number,
  size: number,
  request: SnapshotRequest,
  yielder: Yielder,
): Promise<Omit<Snapshot, "info"> | undefined> {
  const hash = createHash("sha256");
  const whole = request.whole ? new Uint8Array(size) : undefined;
  const start = Math.min(request.window?.start ?? 0, size);
  const end = Math.min(request.window?.end ?? 0, size);
  const window = request.window ? new Uint8Array(Math.max(0, end - start)) : undefined;
  // Past the expected size (and for every chunk when not keeping the whole file) reads land here.
  const spare = new Uint8Array(whole ? 1 : Math.min(size + 1, CHUNK_BYTES));
  let position = 0;
  for (;;) {
    await yielder.checkpoint();
    const direct = whole !== undefined && position < size;
    const into = direct ? whole : spare;
    const offset = direct ? position : 0;
    const length = direct ? Math.min(CHUNK_BYTES, size - position) : spare.length;
    const read = await io.read(handle, into, offset, length, position);
    if (read === 0) break;
    // More bytes than fstat reported: the file grew, so this pass is not one version.
    if (position + read > size) return undefined;
    const chunk = into.subarray(offset, offset + read);
    hash.update(chunk);
    if (window && position < end && position + read > start) {
      const from = Math.max(start, position);
      const to = Math.min(end, position + read);
      window.set(chunk.subarray(from - position, to - position), from - start);
    }
    position += read;
  }
  if (position !== size) return undefined;
  return { revision: hash.digest("hex"), size, window, bytes: whole };
}
