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
  const clean = stripAnsi(text);
  return keepEnd(clean, bounds(options), (cutLines) => markerFor(cutLines));
}

/** What the capture kept of a stream, as {@link truncateCaptured} needs it. */
export interface CaptureView {
  /** The kept text, with the capture's own gap marker where bytes were dropped. */
  readonly text: string;
  readonly droppedBytes: number;
  readonly totalLines: number;
  /** The kept tail alone, present when bytes were dropped. */
  readonly tail?: string;
}

/**
 * The truncator over a bounded capture. When the capture dropped the middle of a stream and the
 * whole kept text does not fit, the model receives the end of the kept tail, and the marker counts
 * every line it does not see (those in the dropped bytes too, which the capture counted as they
 * passed) and says that bytes were cut at capture, which the gap marker no longer shows.
 */
export function truncateCaptured(captured: CaptureView, options: TruncateOptions = {}): string {
  const limits = bounds(options);
  if (captured.droppedBytes === 0 || captured.tail === undefined) {
    return truncateOutput(captured.text, options);
  }
  const whole = stripAnsi(captured.text);
  if (lineCount(whole) <= limits.maxLines && whole.length <= limits.maxChars) return whole;
  const tail = stripAnsi(captured.tail);
  const tailLines = lineCount(tail);
  return keepEnd(
    tail,
    limits,
    (cutLines) => {
      // The tail's first line begins inside the dropped bytes: when it is kept, it is partial.
      const shown = Math.max(0, tailLines - cutLines - (cutLines === 0 ? 1 : 0));
      return captureMarker(captured.totalLines - shown, captured.droppedBytes);
    },
    true,
  );
}

interface Bounds {
  readonly maxLines: number;
  readonly maxChars: number;
}

function bounds(options: TruncateOptions): Bounds {
  return {
    maxLines: Math.max(1, options.maxLines ?? DEFAULT_TRUNCATION.maxLines),
    maxChars: Math.max(1, options.maxChars ?? DEFAULT_TRUNCATION.maxChars),
  };
}

/**
 * Keeps the last `maxLines` lines of `clean` and then the end that fits `maxChars` with the
 * marker; `marker(cutLines)` is given the lines of `clean` cut, a line cut in the middle included.
 * With `always`, the marker is appended even when nothing of `clean` was cut.
 */
function keepEnd(
  clean: string,
  limits: Bounds,
  marker: (cutLines: number) => string,
  always = false,
): string {
  const { maxLines, maxChars } = limits;
  const lines = clean.split("\n");
  // A final newline ends the last line rather than starting an empty one.
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === "";
  if (trailingNewline) lines.pop();
  if (!always && lines.length <= maxLines && clean.length <= maxChars) return clean;

  const kept = lines.slice(-maxLines);
  let dropped = lines.length - kept.length;
  let body = kept.join("\n");
  let suffix = marker(dropped);
  if (body.length + suffix.length > maxChars) {
    const room = Math.max(0, maxChars - marker(lines.length).length);
    const start = safeStart(body, body.length - room);
    if (start > 0) {
      // A line cut in the middle counts as truncated too.
      dropped += countNewlines(body, start) + (body[start - 1] === "\n" ? 0 : 1);
      body = body.slice(start);
    }
    suffix = marker(dropped);
  }
  return `${body}${suffix}`.slice(-maxChars);
}

function captureMarker(lines: number, droppedBytes: number): string {
  return `\n…[truncated ${plural(lines, "line")}; ${plural(droppedBytes, "byte")} over max_output_bytes were not captured]`;
}

/** Lines of a text, a final newline ending the last line. */
function lineCount(text: string): number {
  if (text === "") return 0;
  const feeds = countNewlines(text, text.length);
  return feeds + (text.endsWith("\n") ? 0 : 1);
}

function markerFor(lines: number): string {
  return `\n…[truncated ${plural(lines, "line")}]`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
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
