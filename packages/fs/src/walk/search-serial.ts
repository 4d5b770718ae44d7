import type { FsPort } from "../port/types.js";
import { errorCode } from "../port/types.js";
import type { Yielder } from "../yielder.js";
import type { Needle } from "./lines.js";
import { scanFile } from "./scan.js";
import type { SearchTally } from "./tally.js";
import type { Bound } from "./tree.js";

export interface SearchFile {
  readonly io: FsPort;
  /** The query, and which of its bytes this thread's search looks for first. */
  readonly needle: Needle;
  readonly fileBytes: number | undefined;
  readonly tally: SearchTally;
  readonly yielder: Yielder;
  /** A read buffer reused across files. */
  readonly buffers: { buffer: Buffer };
}

/**
 * Searches one open regular file on this thread and adds it to the tally. `path` is called only
 * for a file that matched: most files do not, and their paths need not be built.
 */
export async function searchOpenFile(
  search: SearchFile,
  handle: number,
  size: number,
  path: () => string,
): Promise<Bound | undefined> {
  const { tally } = search;
  if (search.fileBytes !== undefined && size > search.fileBytes) {
    tally.skipped.large++;
    return undefined;
  }
  if (!tally.admits(size)) return "scan_bytes";
  const found = await scanFile(
    search.io,
    handle,
    size,
    search.needle,
    tally.remaining,
    search.buffers,
    search.yielder,
  );
  if (found.matches.length === 0 && !found.binary && !found.more) return tally.addUnmatched(found.bytes);
  return tally.add(path(), found);
}

/** Opens a listed file without following links and searches it; a swapped or vanished entry is counted and skipped. */
export async function searchListedFile(
  search: SearchFile,
  dir: number,
  name: string,
  path: () => string,
): Promise<Bound | undefined> {
  let opened: { handle: number; info: { size: number } };
  try {
    opened = await search.io.openFile(dir, name);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP") search.tally.skipped.symlinks++;
    else if (code === "ENOTREG" || code === "EISDIR" || code === "ENXIO") search.tally.skipped.special++;
    else if (code !== "ENOENT") throw error;
    return undefined;
  }
  try {
    return await searchOpenFile(search, opened.handle, opened.info.size, path);
  } finally {
    await search.io.close(opened.handle).catch(() => undefined);
  }
}
