import type { LineMatch } from "./lines.js";
import type { Bound } from "./tree.js";

export interface FileMatch extends LineMatch {
  readonly path: string;
}

/** One file's search outcome, as the serial scanner or a worker reports it. */
export interface ScannedFile {
  readonly bytes: number;
  readonly binary: boolean;
  readonly matches: readonly LineMatch[];
  /** The file had more matching lines than it reported. */
  readonly more: boolean;
}

/**
 * What a search found, accumulated strictly in walk order (whichever thread scanned a file), so
 * bounds cut at the same place and counts agree between a serial and a parallel search.
 */
export class SearchTally {
  readonly matches: FileMatch[] = [];
  readonly skipped = { symlinks: 0, special: 0, binary: 0, large: 0, excluded: 0 };
  files = 0;
  bytes = 0;
  readonly #maxMatches: number;
  readonly #scanBytes: number | undefined;

  constructor(maxMatches: number, scanBytes: number | undefined) {
    this.#maxMatches = maxMatches;
    this.#scanBytes = scanBytes;
  }

  /** Matching lines still wanted. */
  get remaining(): number {
    return this.#maxMatches - this.matches.length;
  }

  /** Whether scanning `size` more bytes stays within the scan-byte quota. */
  admits(size: number): boolean {
    return this.#scanBytes === undefined || this.bytes + size <= this.#scanBytes;
  }

  /** Adds a scanned file that is not binary and had no matching line (nor more): no bound falls there. */
  addUnmatched(bytes: number): undefined {
    this.files++;
    this.bytes += bytes;
    return undefined;
  }

  /** Adds a scanned file; returns `matches` when it holds more matching lines than are still wanted. */
  add(path: string, file: ScannedFile): Bound | undefined {
    this.files++;
    this.bytes += file.bytes;
    if (file.binary) this.skipped.binary++;
    const remaining = this.remaining;
    for (const match of file.matches.slice(0, remaining)) this.matches.push({ path, ...match });
    return file.more || file.matches.length > remaining ? "matches" : undefined;
  }
}
