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

/**
 * A literal query prepared for {@link indexOfLiteral}. The search looks for one of its bytes with
 * `Buffer.indexOf(byte)` (memchr, many bytes per instruction) and compares the whole query only
 * there; which byte is learned as the search goes, so the fields after `bytes` change. One needle
 * per thread and search: it is state, not shared.
 */
export interface Needle {
  readonly bytes: Buffer;
  /** Offsets into `bytes` of its distinct byte values, the rarest in typical text first. */
  readonly order: readonly number[];
  /** Index into `order` of the byte looked for; past its end, the whole query is (`Buffer.indexOf`). */
  pick: number;
  /** False candidates and bytes passed under the current pick, halved at each review (a recent average). */
  misses: number;
  span: number;
}

/** A needle for `query`, starting with its byte that is rarest in typical text and code. */
export function literalNeedle(query: Buffer): Needle {
  const offsets: number[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < query.length; i++) {
    if (seen.has(query[i] as number)) continue;
    seen.add(query[i] as number);
    offsets.push(i);
  }
  offsets.sort((a, b) => byteCommonness(query[a] as number) - byteCommonness(query[b] as number));
  return { bytes: query, order: offsets, pick: 0, misses: 0, span: 0 };
}

/**
 * Index of the first occurrence of the needle's query in `hay` at or after `from`, or -1: always
 * the same answer as `hay.indexOf(query, from)`, found faster when the picked byte is rare. Every
 * 32 false candidates the pick is reviewed; when they came more often than one per 256 bytes (about
 * where a candidate costs more than `Buffer.indexOf` of the whole query spends on those bytes) the
 * next byte is tried, and after the last one the whole query is searched for.
 */
export function indexOfLiteral(hay: Buffer, needle: Needle, from: number): number {
  const query = needle.bytes;
  const length = query.length;
  let start = from;
  for (;;) {
    if (needle.pick >= needle.order.length) return hay.indexOf(query, start);
    const offset = needle.order[needle.pick] as number;
    const byte = query[offset] as number;
    // Where the picked byte sits in the last match that would still fit.
    const last = hay.length - length + offset;
    let at = start + offset;
    let switched = false;
    while (!switched) {
      const hit = at > last ? -1 : hay.indexOf(byte, at);
      if (hit < 0 || hit > last) {
        needle.span += hay.length - start;
        return -1;
      }
      const candidate = hit - offset;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (hay[candidate + i] !== query[i]) {
          same = false;
          break;
        }
      }
      if (same) {
        needle.span += candidate - start;
        return candidate;
      }
      at = hit + 1;
      if (++needle.misses % 32 !== 0) continue;
      // No match starts at or before `candidate`: every place the picked byte allowed was compared.
      needle.span += candidate + 1 - start;
      start = candidate + 1;
      if (needle.span < needle.misses * 256) {
        needle.pick++;
        needle.misses = 0;
        needle.span = 0;
        switched = true;
      } else {
        needle.misses /= 2;
        needle.span /= 2;
      }
    }
  }
}

/**
 * How common a byte is in typical source code and prose (higher is more common): the printable
 * ASCII order was measured over a local corpus of JavaScript, TypeScript, Python, C headers,
 * Markdown and documentation; other bytes are placed by kind. Only an estimate to start from:
 * {@link indexOfLiteral} moves on when its pick turns out common in the data searched.
 */
export function byteCommonness(byte: number): number {
  const ORDER =
    " etrosnia\nlpdcum.f-/h_g\",y)(=:b;*x'vSTERIAC{}LPwMON0k\tD#j>2U1F<BG`[]HV3qX|4W6zK&@?8\\5Y97+!$J~ZQ%^\r";
  if (byte >= 0x80 && byte < 0xc0) return ORDER.length - 10; // continuation bytes: as common as letters in non-Latin text
  if (byte >= 0xc0) return ORDER.length - 24; // lead bytes of multi-byte characters
  const index = ORDER.indexOf(String.fromCharCode(byte));
  return index < 0 ? -1 : ORDER.length - index; // control characters: rarest of all
}

/** Lines of `chunk` containing the needle's query, numbered from `linesBefore`; at most `budget` of them. */
export function findLines(
  chunk: Buffer,
  needle: Needle,
  linesBefore: number,
  budget: number,
  countAll: boolean,
): { matches: LineMatch[]; linesAfter: number; more: boolean } {
  const matches: LineMatch[] = [];
  const length = needle.bytes.length;
  let at = indexOfLiteral(chunk, needle, 0);
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
    const newline = chunk.indexOf(10, at + length);
    const end = newline < 0 ? chunk.length : newline;
    matches.push(lineMatch(chunk, start, end, at, length, line + 1));
    if (newline < 0) break;
    at = indexOfLiteral(chunk, needle, newline + 1);
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
export const LINE_FUNCTIONS = [
  literalNeedle,
  indexOfLiteral,
  byteCommonness,
  findLines,
  lineMatch,
  countLines,
  codePointCount,
  isContinuation,
] as const;
