import type { FsPort } from "../port/types.js";
import { isContinuation, isValidUtf8 } from "../utf8.js";
import type { Yielder } from "../yielder.js";
import { findLines, type LineMatch, type Needle } from "./lines.js";

export type { LineMatch } from "./lines.js";

export interface ScanResult {
  readonly matches: LineMatch[];
  readonly binary: boolean;
  readonly bytes: number;
  /** The caller's match budget ran out inside this file: there were more matching lines. */
  readonly more: boolean;
}

/** Bytes read at a time; a file up to this size is read with one call. */
export const SCAN_CHUNK = 4 * 1024 * 1024;

/**
 * Literal, case-sensitive search of one open regular file. The file is read in line-aligned
 * chunks, so a match and its line never straddle two reads (a query containing a line break may
 * miss matches across the 4 MiB read boundaries of a larger file). A file containing a NUL byte
 * or invalid UTF-8 is binary and yields nothing; a single-chunk file is only checked when it
 * contains the query, which is when the answer matters.
 */
export async function scanFile(
  io: FsPort,
  handle: number,
  size: number,
  needle: Needle,
  budget: number,
  buffers: { buffer: Buffer },
  yielder: Yielder,
): Promise<ScanResult> {
  const matches: LineMatch[] = [];
  let position = 0;
  let carry = 0;
  let linesBefore = 0;
  let binary = false;
  let more = false;
  const single = size <= SCAN_CHUNK;
  for (;;) {
    const want = single ? size : SCAN_CHUNK;
    if (buffers.buffer.length < carry + want) {
      const grown = Buffer.allocUnsafe(Math.max(carry + want, buffers.buffer.length * 2));
      buffers.buffer.copy(grown, 0, 0, carry);
      buffers.buffer = grown;
    }
    const buffer = buffers.buffer;
    const read = want === 0 ? 0 : await io.read(handle, buffer, carry, want, position);
    position += read;
    const eof = read < want || position >= size;
    const filled = carry + read;
    // Process whole lines; at end of file everything. A line longer than the buffer is cut at a code point.
    let cut = eof ? filled : buffer.lastIndexOf(10, filled - 1) + 1;
    if (cut === 0) cut = codePointCut(buffer, filled);
    const chunk = buffer.subarray(0, cut);
    if (!single && (chunk.includes(0) || !isValidUtf8(chunk))) binary = true;
    if (!binary) {
      // Line numbers only need the newlines before a match; a later chunk needs this chunk's count.
      const found = findLines(chunk, needle, linesBefore, budget - matches.length, !eof);
      if (found.matches.length > 0 && single && (chunk.includes(0) || !isValidUtf8(chunk))) {
        binary = true;
      } else {
        matches.push(...found.matches);
        more ||= found.more;
      }
      linesBefore = found.linesAfter;
    }
    if (eof || binary || more) break;
    carry = filled - cut;
    buffer.copy(buffer, 0, cut, filled);
    await yielder.checkpoint();
  }
  return { matches: binary ? [] : matches, binary, bytes: position, more: !binary && more };
}

/** The end of the last whole code point in `buffer[0, filled)`. */
function codePointCut(buffer: Buffer, filled: number): number {
  let lead = filled - 1;
  for (let k = 0; k < 3 && lead > 0 && isContinuation(buffer[lead]); k++) lead--;
  const byte = buffer[lead] ?? 0;
  const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead > 0 && lead + length > filled ? lead : filled;
}
