import { createInterface } from "node:readline";
import type {
  ElicitationRequest,
  PermissionAnswer,
  PermissionBroker,
  PermissionRequest,
} from "@pablo/kernel";
import type { Io } from "./output.js";
import { askQuestion } from "./question-card.js";
import {
  dropTypeAhead,
  printable,
  REDRAW,
  rawTerminal,
  releaseTerminal,
  typeAheadNote,
} from "./terminal-input.js";

/**
 * A permission card in the terminal: the tool, a redacted argument preview, why it asks, and a
 * visible countdown to the automatic deny. Only used when stdin and stderr are terminals; without
 * one the CLI has no broker and requests fail closed.
 *
 * Keys typed before a card shows are dropped, so type-ahead never answers it. A tool server's
 * question (MCP elicitation) shows as a question card (`question-card.ts`) in the same queue.
 *
 * One card at a time: calls that run in parallel wait for the card before them, so one typed line
 * never answers two cards. The first answer settles a card; closing the input afterwards (as
 * finishing does) cannot turn it into a deny, while an input that ends before any answer does.
 */
export function terminalBroker(io: Io): PermissionBroker {
  let previous: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(show: () => Promise<T>): Promise<T> => {
    const answer = previous.then(show);
    previous = answer.catch(() => undefined);
    return answer;
  };
  return {
    request: (request: PermissionRequest, signal: AbortSignal) => inTurn(() => ask(io, request, signal)),
    // A tool server's question (MCP elicitation) waits its turn behind the cards, and they behind it.
    elicit: (request: ElicitationRequest, signal: AbortSignal) =>
      inTurn(() => askQuestion(io, request, signal)),
  };
}

/** The keys a card accepts, each with its answer. */
export const CARD_KEYS: Readonly<Record<string, PermissionAnswer>> = {
  o: "allow-once",
  y: "allow-once",
  once: "allow-once",
  s: "allow-session",
  session: "allow-session",
  d: "deny",
  n: "deny",
  deny: "deny",
};

async function ask(io: Io, request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
  if (signal.aborted || Date.now() >= request.deadline) return "deny";
  // The input is armed before anything is shown, and the card goes out with its prompt in one
  // write: a key typed the moment the card is visible is already a keypress, never echoed text.
  // Keys typed before that (type-ahead held by the terminal) are dropped: they were not an
  // answer to a card nobody had seen yet.
  const keys = rawTerminal(io.stdin);
  const dropped = keys ? await dropTypeAhead(keys) : 0;
  if (signal.aborted || Date.now() >= request.deadline) {
    if (keys) releaseTerminal(keys);
    return "deny";
  }
  return new Promise<PermissionAnswer>((resolve) => {
    let settled = false;
    let stopInput = () => {};
    const prompt = () => promptLine(request.deadline, io.columns?.());
    const render = () => io.stderr(prompt());
    // A typed answer ends its own line (the terminal echoes Enter); any other end starts one.
    const finish = (answer: PermissionAnswer, note: string, typed = false) => {
      if (settled) return;
      settled = true;
      clearInterval(ticker);
      clearTimeout(expiry);
      signal.removeEventListener("abort", onAbort);
      io.stderr(`${typed ? "" : "\n"}  → ${note}\n`);
      resolve(answer);
      stopInput();
    };
    // The kernel also ends the request at its deadline, and either timer may fire first: an abort
    // at the deadline is the countdown running out, not a cancellation.
    const onAbort = () =>
      finish(
        "deny",
        Date.now() >= request.deadline - 100 ? "no answer in time: denied" : "cancelled: denied",
      );
    io.stderr(`${card(request)}${typeAheadNote(dropped)}${prompt()}`);
    const ticker = setInterval(render, 1000);
    // The kernel also denies at the deadline; the card says so itself so the screen never shows
    // a countdown at zero waiting for a key.
    const expiry = setTimeout(
      () => finish("deny", "no answer in time: denied"),
      request.deadline - Date.now(),
    );
    signal.addEventListener("abort", onAbort, { once: true });
    if (keys) {
      let wordUntil = 0;
      // A terminal: one key answers (o, s, d), as the card says; Ctrl-C cancels the run as it
      // does everywhere else, since raw mode turns it into a key instead of a signal.
      const onKey = (text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
        if (key?.ctrl && key.name === "c") {
          // The run's own SIGINT handling cancels the turn, whose abort then denies this card,
          // so nothing runs on between the key and the cancellation.
          process.kill(process.pid, "SIGINT");
          return;
        }
        const answer = SINGLE_KEYS[(text ?? "").toLowerCase()];
        const now = Date.now();
        if (answer && now >= wordUntil) {
          io.stderr(`${text}\n`);
          finish(answer, describe(answer), true);
          return;
        }
        // Any other key starts a word, and the keys typed hard on its heels belong to it: the
        // `o` of "no" is not an answer. The person is told once per word.
        if (now >= wordUntil) io.stderr(`${REDRAW}  not an answer: press o, s or d on its own\n`);
        wordUntil = now + WORD_GAP_MS;
        render();
      };
      keys.on("keypress", onKey);
      stopInput = () => {
        keys.off("keypress", onKey);
        releaseTerminal(keys);
      };
    } else {
      const rl = createInterface({ input: io.stdin, terminal: false });
      rl.on("line", (line) => {
        const answer = CARD_KEYS[line.trim().toLowerCase()];
        if (answer) finish(answer, describe(answer), true);
        else render();
      });
      rl.on("close", () => finish("deny", "input closed: denied"));
      stopInput = () => rl.close();
    }
  });
}

/**
 * The card's answer line with its countdown. It is redrawn in place with `\r`, which only works
 * on one screen line: a terminal too narrow for the full line gets the short one, and one too
 * narrow even for that gets no countdown at all rather than a stack of wrapped copies.
 */
function promptLine(deadline: number, columns: number | undefined): string {
  // Each redraw first erases the line: the countdown gets shorter (100s, then 99s).
  const seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  const full = `  [o] allow once  [s] allow for this session  [d] deny   (denied in ${seconds}s) > `;
  if (columns === undefined || full.length < columns) return `${REDRAW}${full}`;
  const short = `  [o]nce [s]ession [d]eny (${seconds}s) > `;
  if (short.length < columns) return `${REDRAW}${short}`;
  return `${REDRAW}[o/s/d] > `;
}

/** A key within this long of a key that is not an answer is part of a typed word, not an answer. */
export const WORD_GAP_MS = 600;

/** Single keys a terminal card answers to; `y` and `n` are left out so a stray word cannot answer. */
const SINGLE_KEYS: Readonly<Record<string, PermissionAnswer>> = {
  o: "allow-once",
  s: "allow-session",
  d: "deny",
};

function describe(answer: PermissionAnswer): string {
  switch (answer) {
    case "allow-once":
      return "allowed once";
    case "allow-session":
      return "allowed for this session";
    case "deny":
      return "denied";
  }
}

function card(request: PermissionRequest): string {
  const who = request.requester ? ` (asked by ${request.requester})` : "";
  return [
    "",
    ...boxed(`permission: ${request.providerName} (${request.tool}), ${request.risk} risk${who}`, "┌ "),
    ...boxed(`why: ${request.reason}`),
    ...argumentLines(request),
    "└",
    "",
  ].join("\n");
}

/**
 * A value longer than this is cut, saying how much is not shown. It is above the shell's longest
 * provable command line (8192), so a command is always shown whole: the tail of a line is where
 * `…; touch PWNED` would hide.
 */
export const CARD_VALUE_CHARS = 16_384;

/**
 * The arguments one top-level field per line, each value whole up to {@link CARD_VALUE_CHARS}:
 * a long value cannot push the fields after it off the card, whatever order the model gave them.
 */
function argumentLines(request: PermissionRequest): string[] {
  const { args } = request;
  if (args === undefined) return boxed(`args: ${request.argsPreview}`);
  if (args === null || typeof args !== "object" || Array.isArray(args) || Object.keys(args).length === 0)
    return boxed(`args: ${bounded(JSON.stringify(args) ?? "null")}`);
  return Object.entries(args).flatMap(([key, value]) =>
    boxed(`${key}: ${bounded(JSON.stringify(value) ?? "null")}`),
  );
}

function bounded(text: string): string {
  if (text.length <= CARD_VALUE_CHARS) return text;
  const hidden = text.length - CARD_VALUE_CHARS;
  return `${text.slice(0, CARD_VALUE_CHARS)}… [${hidden} more characters not shown: deny unless you know them]`;
}

/** Lines of the card with controls, bidi overrides and line breaks escaped (`\u202e`). */
function boxed(text: string, lead = "│ "): string[] {
  return printable(text).map((line, i) => `${i === 0 ? lead : "│   "}${line}`);
}
