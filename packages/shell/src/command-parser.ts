import { checkCharacters } from "./command-characters.js";
import { RESERVED_WORDS } from "./shell-words.js";
import type { UnprovenConstruct } from "./unproven-construct.js";

export type { UnprovenConstruct } from "./unproven-construct.js";

/** One simple command of a command line: its words after quote removal. */
export interface SimpleCommand {
  /** The command word first, then its arguments, exactly as the shell will pass them. */
  readonly words: readonly string[];
  /** Offset of the command's first word in the line. */
  readonly offset: number;
}

/** How two consecutive simple commands are joined. */
export type ListOperator = "&&" | "||" | ";" | "|" | "newline";

export interface ParsedCommandLine {
  /** The simple commands proven so far, in order. Complete only when `unproven` is absent. */
  readonly commands: readonly SimpleCommand[];
  /** `operators[i]` joins `commands[i]` and `commands[i + 1]`. */
  readonly operators: readonly ListOperator[];
  /** The first construct that cannot be evaluated literally; absent when the whole line is proven. */
  readonly unproven?: UnprovenConstruct;
  /**
   * With `unproven`: the words finished before it in the simple command it interrupted (`patch
   * -p1` of `patch -p1 < fix.diff`). Never proven, so never matched by a rule; it only lets the
   * tool recognise what a line starts (a patch command fed by a here-document).
   */
  readonly partial?: SimpleCommand;
}

export interface ParseOptions {
  /** Lines longer than this many UTF-16 code units are refused unread. */
  readonly maxLength?: number;
}

export const DEFAULT_MAX_COMMAND_LENGTH = 8192;

/**
 * A literal parser, not a shell: it tokenizes POSIX quoting (single and double quotes, backslash)
 * and splits lists and pipelines (`;`, newline, `&&`, `||`, `|`) into simple commands. Any construct
 * whose meaning depends on evaluation (expansions, substitutions, globbing, redirections, control
 * flow, assignments, ...) stops the parse and is reported by name, so a rule can only ever be
 * matched against words the shell will pass verbatim.
 */
export function parseCommandLine(text: string, options: ParseOptions = {}): ParsedCommandLine {
  const maxLength = options.maxLength ?? DEFAULT_MAX_COMMAND_LENGTH;
  if (text.length > maxLength) {
    return {
      commands: [],
      operators: [],
      unproven: { construct: `command longer than ${maxLength} characters`, offset: maxLength },
    };
  }
  const bad = checkCharacters(text);
  if (bad) return { commands: [], operators: [], unproven: bad };
  return new LineScanner(text).scan();
}

class Unproven extends Error {
  readonly at: UnprovenConstruct;
  constructor(construct: string, offset: number) {
    super(construct);
    this.at = { construct, offset };
  }
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const WORD_END = /^[ \t\n;&|<>()]?$/;

class LineScanner {
  readonly #text: string;
  #i = 0;
  readonly #commands: SimpleCommand[] = [];
  readonly #operators: ListOperator[] = [];
  #pending: ListOperator | undefined;
  #words: string[] = [];
  #commandOffset = 0;
  #word = "";
  #inWord = false;
  #wordStart = 0;
  #quoted = false;
  #lastUnquoted = "";

  constructor(text: string) {
    this.#text = text;
  }

  scan(): ParsedCommandLine {
    try {
      while (this.#i < this.#text.length) this.#step();
      this.#finishWord();
      this.#endCommand(undefined);
      return { commands: this.#commands, operators: this.#operators };
    } catch (error) {
      if (!(error instanceof Unproven)) throw error;
      const partial =
        this.#words.length > 0 ? { words: this.#words, offset: this.#commandOffset } : undefined;
      return {
        commands: this.#commands,
        operators: this.#operators,
        unproven: error.at,
        ...(partial ? { partial } : {}),
      };
    }
  }

  #step(): void {
    const c = this.#text[this.#i] ?? "";
    const next = this.#text[this.#i + 1];
    switch (c) {
      case " ":
      case "\t":
        this.#finishWord();
        this.#i++;
        return;
      case "\n":
        this.#operator("newline", 1);
        return;
      case "\\":
        this.#escape(next);
        return;
      case "'":
        this.#singleQuoted();
        return;
      case '"':
        this.#doubleQuoted();
        return;
      case "$":
        throw dollar(this.#text, this.#i, false);
      case "`":
        throw new Unproven("backticks", this.#i);
      case "|":
        if (next === "&") throw new Unproven("redirection", this.#i);
        this.#operator(next === "|" ? "||" : "|", next === "|" ? 2 : 1);
        return;
      case "&":
        if (next !== "&") throw new Unproven(next === ">" ? "redirection" : "background &", this.#i);
        this.#operator("&&", 2);
        return;
      case ";":
        if (next === ";" || next === "&") throw new Unproven("control flow", this.#i);
        this.#operator(";", 1);
        return;
      case "<":
      case ">":
        throw new Unproven(redirectionKind(c, next), this.#i);
      case "(":
        throw new Unproven(this.#parenKind(next), this.#i);
      case ")":
        throw new Unproven("subshell", this.#i);
      case "{":
      case "}":
        throw new Unproven(!this.#inWord && WORD_END.test(next ?? "") ? "group" : "brace expansion", this.#i);
      case "*":
      case "?":
        throw new Unproven("globbing", this.#i);
      case "[":
        throw new Unproven(!this.#inWord && next === "[" ? "conditional expression [[" : "globbing", this.#i);
      case "~":
        if (!this.#inWord || this.#lastUnquoted === "=" || this.#lastUnquoted === ":") {
          throw new Unproven("tilde expansion", this.#i);
        }
        this.#literal(c);
        return;
      case "#":
        if (!this.#inWord) throw new Unproven("comment", this.#i);
        this.#literal(c);
        return;
      default:
        this.#literal(c);
        return;
    }
  }

  #literal(c: string): void {
    this.#startWord();
    this.#word += c;
    this.#lastUnquoted = c;
    this.#i++;
  }

  #escape(next: string | undefined): void {
    if (next === undefined) throw new Unproven("trailing backslash", this.#i);
    if (next === "\n") {
      // A line continuation joins two lines and contributes nothing to the word.
      this.#i += 2;
      return;
    }
    this.#startWord();
    this.#word += next;
    this.#quoted = true;
    this.#lastUnquoted = "";
    this.#i += 2;
  }

  #singleQuoted(): void {
    const end = this.#text.indexOf("'", this.#i + 1);
    if (end < 0) throw new Unproven("unterminated quote", this.#i);
    this.#startWord();
    this.#word += this.#text.slice(this.#i + 1, end);
    this.#quoted = true;
    this.#lastUnquoted = "";
    this.#i = end + 1;
  }

  #doubleQuoted(): void {
    const start = this.#i;
    this.#startWord();
    let j = this.#i + 1;
    for (;;) {
      const ch = this.#text[j];
      if (ch === undefined) throw new Unproven("unterminated quote", start);
      if (ch === '"') break;
      if (ch === "$") throw dollar(this.#text, j, true);
      if (ch === "`") throw new Unproven("backticks", j);
      if (ch === "\\") {
        const escaped = this.#text[j + 1];
        if (escaped === undefined) throw new Unproven("unterminated quote", start);
        if (escaped === "\n") j += 2;
        else if ('$`"\\'.includes(escaped)) {
          this.#word += escaped;
          j += 2;
        } else {
          this.#word += "\\";
          j++;
        }
        continue;
      }
      this.#word += ch;
      j++;
    }
    this.#quoted = true;
    this.#lastUnquoted = "";
    this.#i = j + 1;
  }

  #parenKind(next: string | undefined): string {
    if (next === "(") return "arithmetic expansion";
    const named = this.#inWord || this.#words.length > 0;
    return named &&
      this.#text
        .slice(this.#i + 1)
        .trimStart()
        .startsWith(")")
      ? "function definition"
      : "subshell";
  }

  #startWord(): void {
    if (this.#inWord) return;
    this.#inWord = true;
    this.#wordStart = this.#i;
    if (this.#words.length === 0) this.#commandOffset = this.#i;
  }

  #finishWord(): void {
    if (!this.#inWord) return;
    if (this.#words.length === 0) {
      const raw = this.#text.slice(this.#wordStart, this.#i);
      if (ASSIGNMENT.test(raw)) throw new Unproven("assignment prefix", this.#wordStart);
      if (!this.#quoted) {
        const reserved = RESERVED_WORDS.get(this.#word);
        if (reserved) throw new Unproven(reserved, this.#wordStart);
      }
    }
    this.#words.push(this.#word);
    this.#word = "";
    this.#inWord = false;
    this.#quoted = false;
    this.#lastUnquoted = "";
  }

  #operator(op: ListOperator, width: number): void {
    this.#finishWord();
    this.#endCommand(op);
    this.#i += width;
  }

  /** Ends the current simple command at `op` (undefined at the end of the line). */
  #endCommand(op: ListOperator | undefined): void {
    if (this.#words.length === 0) {
      const continues = this.#pending === "&&" || this.#pending === "||" || this.#pending === "|";
      // A blank line is nothing; a line break may follow `&&`, `||` and `|` before the next command.
      if (op === "newline") return;
      if (op === undefined) {
        if (continues) throw new Unproven("incomplete list", this.#i);
        return;
      }
      throw new Unproven("empty command", this.#i);
    }
    if (this.#commands.length > 0 && this.#pending) this.#operators.push(this.#pending);
    this.#commands.push({ words: this.#words, offset: this.#commandOffset });
    this.#words = [];
    this.#pending = op;
  }
}

function dollar(text: string, at: number, inDoubleQuotes: boolean): Unproven {
  const next = text[at + 1];
  if (next === "(")
    return new Unproven(text[at + 2] === "(" ? "arithmetic expansion" : "command substitution", at);
  if (next === "[") return new Unproven("arithmetic expansion", at);
  if (!inDoubleQuotes && next === "'") return new Unproven("ANSI-C quoting", at);
  if (!inDoubleQuotes && next === '"') return new Unproven("locale quoting", at);
  return new Unproven("parameter expansion", at);
}

function redirectionKind(c: string, next: string | undefined): string {
  if (next === "(") return "process substitution";
  if (c === "<" && next === "<") return "here-document";
  return "redirection";
}
