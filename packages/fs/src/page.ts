import { isContinuation } from "./utf8.js";

/** Bytes to keep on each side of a requested page so its bounds can move to code point starts. */
export const PAGE_MARGIN = 4;

/**
 * Page bounds that never split a UTF-8 code point. An offset inside a code point moves back to
 * its first byte; the end moves back to the start of a code point it would split; a page too
 * small for one code point grows to hold exactly one, so paging always advances. `at(i)` gives
 * the byte at file position `i` (within the kept window).
 */
export function pageBounds(
  at: (position: number) => number | undefined,
  size: number,
  offset: number,
  limit: number,
): { start: number; end: number } {
  let start = Math.min(offset, size);
  for (let k = 0; k < 3 && start > 0 && start < size && isContinuation(at(start)); k++) start--;
  let end = Math.min(size, start + limit);
  for (let k = 0; k < 3 && end > start && end < size && isContinuation(at(end)); k++) end--;
  if (end <= start && start < size) {
    end = start + 1;
    while (end < size && end - start < 4 && isContinuation(at(end))) end++;
  }
  return { start, end };
}
