export interface TruncateOptions {
  /** Lines kept, from the end. Default 200. */
  readonly maxLines?: number;
  /** Characters of the whole result, marker included. Default 16,000. */
  readonly maxChars?: number;
}

export const DEFAULT_TRUNCATION = Object.freeze({ maxLines: 200, maxChars: 16_000 });

// CSI (ESC [ or the 8-bit 0x9b), OSC (ESC ] ... BEL or ST), and the other two-byte escapes.
const ANSI =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point.
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[ -/]*[0-~]/g;

/** Removes ANSI escape sequences (colours, cursor movement, titles) from terminal output. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/**
 * Seed 003's output truncator: strips ANSI escapes, keeps the last `maxLines` lines, appends a
 * `…[truncated N lines]` marker, then caps the whole text at `maxChars` characters by keeping the
 * end (the most recent output) and counting any further lines it cut. Pure line and character
 * arithmetic: no tokenizer. A text within both bounds comes back with only its escapes removed.
 */
export function truncateOutput(text: string, options: TruncateOptions = {}): string {
  const maxLines = Math.max(1, options.maxLines ?? DEFAULT_TRUNCATION.maxLines);
  const maxChars = Math.max(1, options.maxChars ?? DEFAULT_TRUNCATION.maxChars);
  const clean = stripAnsi(text);
  const lines = clean.split("\n");
  // A final newline ends the last line rather than starting an empty one.
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === "";
  if (trailingNewline) lines.pop();
  if (lines.length <= maxLines && clean.length <= maxChars) return clean;

  const kept = lines.slice(-maxLines);
  let dropped = lines.length - kept.length;
  let body = kept.join("\n");
  let marker = markerFor(dropped);
  if (body.length + marker.length > maxChars) {
    const room = Math.max(0, maxChars - markerFor(lines.length).length);
    const start = safeStart(body, body.length - room);
    if (start > 0) {
      // A line cut in the middle counts as truncated too.
      dropped += countNewlines(body, start) + (body[start - 1] === "\n" ? 0 : 1);
      body = body.slice(start);
    }
    marker = markerFor(dropped);
  }
  return `${body}${marker}`.slice(-maxChars);
}

function markerFor(lines: number): string {
  return `\n…[truncated ${lines} lines]`;
}

/** Newlines before `end`. */
function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < end; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** Moves a cut forward off the low half of a surrogate pair so no character is split. */
function safeStart(text: string, start: number): number {
  if (start <= 0) return 0;
  const code = text.charCodeAt(start);
  return code >= 0xdc00 && code <= 0xdfff ? start + 1 : start;
}
