// The terminal input the cards share: raw single keys, type-ahead dropped, text made safe to show.
import { emitKeypressEvents } from "node:readline";
import { holdForeground } from "./foreground.js";

/** Back to the line's start and erase it: a card's answer line is redrawn in place. */
export const REDRAW = "\r\x1b[K";

export type RawTerminal = NodeJS.ReadStream & { setRawMode(mode: boolean): unknown };

/**
 * The input as a raw-mode terminal emitting keypresses, when it is one; else undefined (line input).
 * The terminal's foreground is held from here to `releaseTerminal` (see `holdForeground`).
 */
export function rawTerminal(input: NodeJS.ReadableStream): RawTerminal | undefined {
  const tty = input as Partial<RawTerminal>;
  if (!tty.isTTY || typeof tty.setRawMode !== "function") return undefined;
  const keys = input as RawTerminal;
  const giveBack = holdForeground((line) => process.stderr.write(line));
  try {
    keys.setRawMode(true);
  } catch {
    giveBack();
    // A terminal that refuses raw mode still answers by lines.
    return undefined;
  }
  heldForeground.set(keys, giveBack);
  emitKeypressEvents(keys);
  keys.resume();
  return keys;
}

const heldForeground = new WeakMap<RawTerminal, () => void>();

/**
 * How long keys that were already waiting are read and dropped before a card shows. Bytes the
 * terminal held arrive on the event loop's first poll after raw mode is on, well within this;
 * a person cannot see a card and answer it in the time.
 */
const TYPE_AHEAD_WINDOW_MS = 30;

/** Reads and drops the keys already waiting; resolves with how many there were. */
export function dropTypeAhead(keys: RawTerminal): Promise<number> {
  let dropped = 0;
  // Ctrl-C still cancels, as on the card itself.
  const drop = (_text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
    if (key?.ctrl && key.name === "c") process.kill(process.pid, "SIGINT");
    else dropped++;
  };
  keys.on("keypress", drop);
  return new Promise((resolve) =>
    setTimeout(() => {
      keys.off("keypress", drop);
      resolve(dropped);
    }, TYPE_AHEAD_WINDOW_MS),
  );
}

/**
 * The card's line saying type-ahead was dropped, or "" when none was: a key pressed before the card
 * showed is not an answer, and without this line the card would seem to have ignored it.
 */
export function typeAheadNote(dropped: number): string {
  if (dropped === 0) return "";
  return "  (keys typed before this card was shown were ignored: answer now)\n";
}

export function releaseTerminal(keys: RawTerminal): void {
  keys.setRawMode(false);
  keys.pause();
  heldForeground.get(keys)?.();
  heldForeground.delete(keys);
}

/**
 * Text from a tool server, made safe to print: control and format characters (escape sequences
 * that could move the cursor, recolour or redraw the screen into a fake card; bidirectional
 * overrides; invisible characters) are shown as `\uXXXX`, and each line break starts a new line.
 */
export function printable(text: string): string[] {
  return text
    .split(/\r\n|\n|\r/)
    .map((line) => line.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
