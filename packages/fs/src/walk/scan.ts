import type { FsPort } from "../port/types.js";
import { codePointCount, isContinuation, isValidUtf8 } from "../utf8.js";
import type { Yielder } from "../yielder.js";

/** One matching line. */
export interface LineMatch {
  readonly line: number;
  /** 1-based column of the first match on the line, in Unicode code points. */
  readonly column: number;
  readonly text: string;
  readonly text_truncated?: true;
}

export interface ScanResult {
  readonly matches: LineMatch[];
  readonly binary: boolean;
  readonly bytes: number;
  /** The caller's match budget ran out inside this file: there were more matching lines. */
  readonly more: boolean;
}

/** Bytes read at a time; a file up to this size is read with one call. */
export const SCAN_CHUNK = 4 * 1024 * 1024;
/** A line longer than this is shown as a window around the match. */
const MAX_LINE_BYTES = 1000;
const CONTEXT_BYTES = 200;

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
  query: Buffer,
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
      const found = findLines(chunk, query, linesBefore, budget - matches.length);
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

/** Lines of `chunk` containing `query`, numbered from `linesBefore`; at most `budget` of them. */
function findLines(
  chunk: Buffer,
  query: Buffer,
  linesBefore: number,
  budget: number,
): { matches: LineMatch[]; linesAfter: number; more: boolean } {
  const matches: LineMatch[] = [];
  let at = chunk.indexOf(query);
  if (at < 0) return { matches, linesAfter: linesBefore + countLines(chunk, 0, chunk.length), more: false };
  let line = linesBefore;
  let counted = 0;
  while (at >= 0) {
    if (matches.length >= budget) return { matches, linesAfter: line, more: true };
    const start = chunk.lastIndexOf(10, at) + 1;
    line += countLines(chunk, counted, start);
    counted = start;
    const newline = chunk.indexOf(10, at + query.length);
    const end = newline < 0 ? chunk.length : newline;
    matches.push(lineMatch(chunk, start, end, at, query.length, line + 1));
    if (newline < 0) break;
    at = chunk.indexOf(query, newline + 1);
  }
  return { matches, linesAfter: line + countLines(chunk, counted, chunk.length), more: false };
}

function lineMatch(
  chunk: Buffer,
  start: number,
  end: number,
  at: number,
  length: number,
  line: number,
): LineMatch {
  const column = codePointCount(chunk.subarray(start, at)) + 1;
  const trimmedEnd = end > start && chunk[end - 1] === 13 ? end - 1 : end;
  if (trimmedEnd - start <= MAX_LINE_BYTES) {
    return { line, column, text: chunk.toString("utf8", start, trimmedEnd) };
  }
  let from = Math.max(start, at - CONTEXT_BYTES);
  while (from > start && isContinuation(chunk[from])) from--;
  let to = Math.min(trimmedEnd, at + length + CONTEXT_BYTES);
  while (to < trimmedEnd && isContinuation(chunk[to])) to++;
  return { line, column, text: chunk.toString("utf8", from, to), text_truncated: true };
}

function countLines(chunk: Buffer, from: number, to: number): number {
  let count = 0;
  let at = chunk.indexOf(10, from);
  while (at >= 0 && at < to) {
    count++;
    at = chunk.indexOf(10, at + 1);
  }
  return count;
}

/** The end of the last whole code point in `buffer[0, filled)`. */
function codePointCut(buffer: Buffer, filled: number): number {
  let lead = filled - 1;
  for (let k = 0; k < 3 && lead > 0 && isContinuation(buffer[lead]); k++) lead--;
  const byte = buffer[lead] ?? 0;
  const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead > 0 && lead + length > filled ? lead : filled;
}
