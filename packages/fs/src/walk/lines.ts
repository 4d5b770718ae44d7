/**
 * Finding matching lines in a buffer. Pure, import-free and free of module-level state on purpose:
 * the search worker threads run these very functions (their source text), so a parallel search and
 * a serial one give the same answer.
 */

/** One matching line. */
export interface LineMatch {
  readonly line: number;
  /** 1-based column of the first match on the line, in Unicode code points. */
  readonly column: number;
  readonly text: string;
  readonly text_truncated?: true;
}

/** Lines of `chunk` containing `query`, numbered from `linesBefore`; at most `budget` of them. */
export function findLines(
  chunk: Buffer,
  query: Buffer,
  linesBefore: number,
  budget: number,
  countAll: boolean,
): { matches: LineMatch[]; linesAfter: number; more: boolean } {
  const matches: LineMatch[] = [];
  let at = chunk.indexOf(query);
  if (at < 0) {
    return {
      matches,
      linesAfter: countAll ? linesBefore + countLines(chunk, 0, chunk.length) : linesBefore,
      more: false,
    };
  }
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
  return {
    matches,
    linesAfter: countAll ? line + countLines(chunk, counted, chunk.length) : line,
    more: false,
  };
}

export function lineMatch(
  chunk: Buffer,
  start: number,
  end: number,
  at: number,
  length: number,
  line: number,
): LineMatch {
  // A line longer than this is shown as a window of this many bytes around the match.
  const MAX_LINE_BYTES = 1000;
  const CONTEXT_BYTES = 200;
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

export function countLines(chunk: Buffer, from: number, to: number): number {
  let count = 0;
  let at = chunk.indexOf(10, from);
  while (at >= 0 && at < to) {
    count++;
    at = chunk.indexOf(10, at + 1);
  }
  return count;
}

/** A UTF-8 continuation byte (`10xxxxxx`): never the first byte of a code point. */
export function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** Number of code points in valid UTF-8 bytes (a count of non-continuation bytes). */
export function codePointCount(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) if (!isContinuation(byte)) count++;
  return count;
}

/** Every function above, for the worker's source text. */
export const LINE_FUNCTIONS = [findLines, lineMatch, countLines, codePointCount, isContinuation] as const;
