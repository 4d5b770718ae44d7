import { createInterface } from "node:readline";
import type {
  ElicitationAnswer,
  ElicitationField,
  ElicitationRequest,
  ElicitationValue,
} from "@pablo/kernel";
import { fieldAccepts } from "@pablo/mcp/elicitation";
import type { Io } from "./output.js";
import {
  dropTypeAhead,
  printable,
  type RawTerminal,
  REDRAW,
  rawTerminal,
  releaseTerminal,
  typeAheadNote,
} from "./terminal-input.js";

/**
 * A tool server's question (MCP elicitation) on the terminal: who asks, the message, and each
 * field with the value it has now (the schema's default, SEP-1034). One key answers: `a` accepts
 * the values shown (offered only when every required field has one), `f` fills the fields in one
 * line each (Enter keeps the value shown; a value that does not fit is asked again, with why),
 * `d` declines, `c` or Esc cancels. No answer by the deadline declines; Ctrl-C cancels the
 * question and the run. What the server sends is shown with its control characters escaped, so
 * it cannot redraw the screen. The values typed go to the server and nowhere else.
 */
export async function askQuestion(
  io: Io,
  request: ElicitationRequest,
  signal: AbortSignal,
): Promise<ElicitationAnswer> {
  if (signal.aborted || io.signal.aborted) return { action: "cancel" };
  if (Date.now() >= request.deadline) return { action: "decline" };
  const keys = rawTerminal(io.stdin);
  const dropped = keys ? await dropTypeAhead(keys) : 0;
  const input = new CardInput(io.stdin, keys);
  const end = deadlineOrAbort(request.deadline, [signal, io.signal]);
  try {
    const outcome = await Promise.race([converse(io, request, input, dropped), end.reached]);
    io.stderr(`${outcome.typed ? "" : "\n"}  → ${outcome.note}\n`);
    return outcome.answer;
  } finally {
    end.dispose();
    input.close();
  }
}

interface Outcome {
  readonly answer: ElicitationAnswer;
  readonly note: string;
  /** The person's own Enter ended the line already. */
  readonly typed?: boolean;
}

async function converse(
  io: Io,
  request: ElicitationRequest,
  input: CardInput,
  dropped: number,
): Promise<Outcome> {
  const values = startingValues(request.fields);
  const complete = request.required.every((name) => values[name] !== undefined);
  const choices = complete ? ACCEPT_CHOICES : FILL_CHOICES;
  const choiceLine = () => `${REDRAW}  ${choices.label}   (declined in ${secondsLeft(request.deadline)}s) > `;
  io.stderr(`${card(request, values)}${typeAheadNote(dropped)}${choiceLine()}`);
  const ticker = setInterval(() => io.stderr(choiceLine()), 1000);
  const choice = await input
    .choose(choices.keys, {
      retry: () => io.stderr(choiceLine()),
      // A key ends its line as Enter would.
      echo: (key) => io.stderr(`${key}\n`),
    })
    .finally(() => clearInterval(ticker));
  switch (choice) {
    case undefined:
      return { answer: { action: "cancel" }, note: "input closed: cancelled" };
    case "a":
      return { answer: { action: "accept", content: values }, note: "accepted", typed: true };
    case "d":
      return { answer: { action: "decline" }, note: "declined", typed: true };
    case "c":
      return { answer: { action: "cancel" }, note: "cancelled", typed: true };
  }
  const content = await fillIn(io, request, values, input);
  if (!content) return { answer: { action: "cancel" }, note: "input closed: cancelled" };
  return { answer: { action: "accept", content }, note: "answered", typed: true };
}

const ACCEPT_CHOICES = {
  keys: ["a", "f", "d", "c"],
  label: "[a] accept  [f] fill in  [d] decline  [c] cancel",
} as const;
const FILL_CHOICES = { keys: ["f", "d", "c"], label: "[f] fill in  [d] decline  [c] cancel" } as const;

/** One line per field, in the server's order; undefined when the input closes first. */
async function fillIn(
  io: Io,
  request: ElicitationRequest,
  values: Record<string, ElicitationValue>,
  input: CardInput,
): Promise<Record<string, ElicitationValue> | undefined> {
  const content = { ...values };
  for (const [name, field] of Object.entries(request.fields)) {
    const required = request.required.includes(name);
    const about = [field.title, field.description].filter((t) => t !== undefined).join(": ");
    if (about) io.stderr(`  ${printable(about).join(" ")}\n`);
    if (field.type === "enum" || field.type === "multiselect") io.stderr(`    ${numberedOptions(field)}\n`);
    for (;;) {
      const current = content[name];
      const shown = current === undefined ? "" : ` [${printable(showValue(field, current)).join(" ")}]`;
      io.stderr(`  ${name} (${kindHint(field)}${required ? ", required" : ""})${shown} > `);
      const line = await input.line();
      if (line === undefined) return undefined;
      const typed = parseTyped(field, line.trim(), current);
      if ("error" in typed) {
        io.stderr(`  ✗ ${typed.error}\n`);
        continue;
      }
      if (typed.value === undefined && required) {
        io.stderr("  ✗ a value is required\n");
        continue;
      }
      if (typed.value === undefined) delete content[name];
      else content[name] = typed.value;
      break;
    }
  }
  return content;
}

/** The input a card reads: single keys on a raw terminal, else lines; lines again to fill in. */
class CardInput {
  readonly #stdin: NodeJS.ReadableStream;
  readonly #keys: RawTerminal | undefined;
  #lines: AsyncIterator<string> | undefined;
  #closeLines: (() => void) | undefined;
  #stopKeys: (() => void) | undefined;

  constructor(stdin: NodeJS.ReadableStream, keys: RawTerminal | undefined) {
    this.#stdin = stdin;
    this.#keys = keys;
  }

  /** One of `accepted` (Esc is `c`); undefined when the input closes. */
  async choose(
    accepted: readonly string[],
    show: { retry: () => void; echo: (key: string) => void },
  ): Promise<string | undefined> {
    const keys = this.#keys;
    if (!keys) {
      for (;;) {
        const line = await this.line();
        if (line === undefined) return undefined;
        const word = line.trim().toLowerCase();
        const choice = accepted.find((key) => word === key || CHOICE_WORDS[word] === key);
        if (choice) return choice;
        show.retry();
      }
    }
    return new Promise((resolve) => {
      const onKey = (text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
        // Raw mode turns Ctrl-C into a key: it cancels the run as everywhere else, and the run's
        // abort then cancels this question.
        if (key?.ctrl && key.name === "c") return void process.kill(process.pid, "SIGINT");
        const pressed = key?.name === "escape" ? "c" : (text ?? "").toLowerCase();
        if (!accepted.includes(pressed)) return show.retry();
        show.echo(pressed);
        done(pressed);
      };
      const done = (choice: string | undefined) => {
        keys.off("keypress", onKey);
        this.#stopKeys = undefined;
        resolve(choice);
      };
      keys.on("keypress", onKey);
      this.#stopKeys = () => done(undefined);
    }).then((choice) => {
      if (typeof choice === "string") keys.setRawMode(false);
      return choice as string | undefined;
    });
  }

  /** The next typed line, echoed by the terminal itself; undefined once the input closes. */
  async line(): Promise<string | undefined> {
    if (!this.#lines) {
      if (this.#keys) this.#keys.setRawMode(false);
      const rl = createInterface({ input: this.#stdin, terminal: false });
      this.#lines = rl[Symbol.asyncIterator]();
      this.#closeLines = () => rl.close();
    }
    const next = await this.#lines.next();
    return next.done ? undefined : next.value;
  }

  close(): void {
    this.#stopKeys?.();
    this.#closeLines?.();
    if (this.#keys) releaseTerminal(this.#keys);
  }
}

/** Words a line-mode answer may use for the keys. */
const CHOICE_WORDS: Readonly<Record<string, string>> = {
  accept: "a",
  fill: "f",
  decline: "d",
  cancel: "c",
};

/** Resolves at the deadline (decline) or an abort (cancel), whichever comes first. */
function deadlineOrAbort(deadline: number, signals: readonly AbortSignal[]) {
  let settle: (outcome: Outcome) => void = () => {};
  const reached = new Promise<Outcome>((resolve) => {
    settle = resolve;
  });
  const timer = setTimeout(
    () => settle({ answer: { action: "decline" }, note: "no answer in time: declined" }),
    Math.max(0, deadline - Date.now()),
  );
  // The asker also ends the question at the deadline, and either may fire first: an abort at the
  // deadline is the time running out, not a cancellation.
  const onAbort = () =>
    settle(
      Date.now() >= deadline - 100
        ? { answer: { action: "decline" }, note: "no answer in time: declined" }
        : { answer: { action: "cancel" }, note: "cancelled" },
    );
  for (const signal of signals) signal.addEventListener("abort", onAbort, { once: true });
  return {
    reached,
    dispose: () => {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener("abort", onAbort);
    },
  };
}

function startingValues(fields: ElicitationRequest["fields"]): Record<string, ElicitationValue> {
  const values: Record<string, ElicitationValue> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (field.default !== undefined && fieldAccepts(field, field.default)) values[name] = field.default;
  }
  return values;
}

function card(request: ElicitationRequest, values: Record<string, ElicitationValue>): string {
  const lines = [
    "",
    `┌ question from ${printable(request.server).join(" ")} (MCP server)`,
    ...printable(request.message).map((line) => `│ ${line}`),
  ];
  for (const [name, field] of Object.entries(request.fields)) {
    const value = values[name];
    const shown = value === undefined ? "(no value)" : showValue(field, value);
    const required = request.required.includes(name) ? ", required" : "";
    const title = field.title ? ` (${field.title})` : "";
    lines.push(`│ ${printable(`${name}${title}: ${shown}${required}`).join(" ")}`);
    if (field.description) lines.push(`│   ${printable(field.description).join(" ")}`);
  }
  return `${lines.join("\n")}\n└\n`;
}

function showValue(field: ElicitationField, value: ElicitationValue): string {
  if (field.type === "boolean") return value ? "yes" : "no";
  if (field.type === "enum" || field.type === "multiselect") {
    const picked = Array.isArray(value) ? value : [String(value)];
    return picked.length === 0 ? "none" : picked.map((v) => optionLabel(field, v)).join(", ");
  }
  return String(value);
}

function optionLabel(field: Extract<ElicitationField, { options: string[] }>, value: string): string {
  const title = field.optionTitles?.[field.options.indexOf(value)];
  return title && title !== value ? `${title} (${value})` : value;
}

function numberedOptions(field: Extract<ElicitationField, { options: string[] }>): string {
  return field.options
    .map((option, i) => `${i + 1} ${printable(optionLabel(field, option)).join(" ")}`)
    .join("  ");
}

function kindHint(field: ElicitationField): string {
  const range = (low: number | undefined, high: number | undefined) =>
    low !== undefined && high !== undefined
      ? ` ${low}–${high}`
      : low !== undefined
        ? ` ≥ ${low}`
        : high !== undefined
          ? ` ≤ ${high}`
          : "";
  switch (field.type) {
    case "string": {
      const length =
        field.minLength !== undefined || field.maxLength !== undefined
          ? `,${range(field.minLength, field.maxLength)} characters`
          : "";
      return `${field.format ?? "text"}${length}`;
    }
    case "integer":
      return `whole number${range(field.minimum, field.maximum)}`;
    case "number":
      return `number${range(field.minimum, field.maximum)}`;
    case "boolean":
      return "y/n";
    case "enum":
      return "pick one: its number or value";
    case "multiselect": {
      const count = range(field.minItems, field.maxItems);
      return `pick${count ? `${count}` : " any"}: numbers or values, comma-separated, - for none`;
    }
  }
}

/** A typed line as the field's value: empty keeps `current`; an error says what would fit. */
function parseTyped(
  field: ElicitationField,
  text: string,
  current: ElicitationValue | undefined,
): { value: ElicitationValue | undefined } | { error: string } {
  if (text === "") return { value: current };
  const value = typedValue(field, text);
  if (value === undefined || !fieldAccepts(field, value)) return { error: `expected ${kindHint(field)}` };
  return { value };
}

function typedValue(field: ElicitationField, text: string): ElicitationValue | undefined {
  switch (field.type) {
    case "string":
      return text;
    case "integer":
    case "number": {
      const n = Number(text);
      return Number.isFinite(n) ? n : undefined;
    }
    case "boolean":
      return YES.has(text.toLowerCase()) ? true : NO.has(text.toLowerCase()) ? false : undefined;
    case "enum":
      return pickOption(field, text);
    case "multiselect": {
      if (text === "-") return [];
      const picks = text.split(",").map((part) => pickOption(field, part.trim()));
      return picks.every((p) => p !== undefined) ? (picks as string[]) : undefined;
    }
  }
}

const YES = new Set(["y", "yes", "true"]);
const NO = new Set(["n", "no", "false"]);

/** An option by its value, its 1-based number, or its title (any case). */
function pickOption(
  field: Extract<ElicitationField, { options: string[] }>,
  text: string,
): string | undefined {
  if (field.options.includes(text)) return text;
  const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
  if (index >= 0 && index < field.options.length) return field.options[index];
  const byTitle = field.optionTitles?.findIndex((t) => t.toLowerCase() === text.toLowerCase()) ?? -1;
  return byTitle >= 0 ? field.options[byTitle] : undefined;
}

function secondsLeft(deadline: number): number {
  return Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
}
