import { RE2JS } from "re2js";

/** Why a pattern cannot be compiled; `reason` is stable, `message` is for the model. */
export class GlobSyntaxError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** More range elements than this (`{1..5000}`) is refused, like too many brace alternatives. */
export const MAX_RANGE_ELEMENTS = 1024;

// Every path segment is matched with a marker before it (markSegments in glob-match.ts): \x00
// before a dot name, PLAIN before any other. A wildcard that starts a segment demands PLAIN unless
// dot names are allowed; a literal start accepts either. RE2 has no lookahead, so this is how `*`
// learns not to match `.git` without the `(?!\.)` picomatch uses.
const PLAIN = "\\x01";
const ANY_MARKER = "[\\x00\\x01]";

/**
 * Translates a glob into RE2 syntax over marked paths. Supported: `*`, `?`, `[...]` (`[!...]` and
 * `[^...]` negate, POSIX classes), `**` as a whole segment, `{a,b}` (nested), `{1..9}` and `{a..e}`,
 * extglobs `@(a|b)`, `?(...)`, `*(...)`, `+(...)`, and `\` escapes. Throws GlobSyntaxError.
 */
export function globToRe2(pattern: string, dot: boolean): string {
  const parser = new Parser(pattern, dot);
  return parser.sequence("", true);
}

class Parser {
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly dot: boolean,
  ) {}

  /** Parses up to an unescaped closer (or the end, when `closers` is empty). */
  sequence(closers: string, atSegmentStart = false): string {
    const t = this.text;
    let out = "";
    // At a segment start whose marker is not yet emitted; a group's marker is emitted before it.
    let pending = atSegmentStart;
    const start = (wild: boolean): string => {
      if (!pending) return "";
      pending = false;
      return wild && !this.dot ? PLAIN : ANY_MARKER;
    };
    while (this.i < t.length) {
      const c = t[this.i] as string;
      if (closers.includes(c)) return out + start(false);
      const next = t[this.i + 1];
      if (c === "\\") {
        out += start(false) + RE2JS.quote(next ?? "\\");
        this.i += 2;
      } else if (c === "/") {
        out += start(false);
        if (t.startsWith("**", this.i + 1) && this.endsAlternative(this.i + 3, closers)) {
          out += `(?:/${this.segment()})*`; // `a/**` also matches `a`
          this.i += 3;
        } else {
          out += "/";
          this.i++;
          pending = true;
        }
      } else if (c === "*" && next === "*" && pending && this.globstarEnds(this.i + 2, closers)) {
        const slash = t[this.i + 2] === "/";
        out += slash ? `(?:${this.segment()}/)*` : `${this.segment()}(?:/${this.segment()})*`;
        this.i += slash ? 3 : 2;
        if (!slash) pending = false;
      } else if ("@*?+!".includes(c) && next === "(" && this.closes(this.i + 1)) {
        if (c === "!") throw new GlobSyntaxError("negated-extglob", negatedMessage);
        out += start(false) + this.group(c);
      } else if (c === "(" && this.closes(this.i)) {
        out += start(false) + this.group("@");
      } else if (c === "*") {
        out += `${start(true)}[^/]*`;
        while (t[this.i] === "*") this.i++;
      } else if (c === "?") {
        out += `${start(true)}[^/]`;
        this.i++;
      } else if (c === "[" && bracketEnd(t, this.i) > this.i + 1) {
        const end = bracketEnd(t, this.i);
        const body = t.slice(this.i + 1, end - 1);
        const negated = body.startsWith("!") || body.startsWith("^");
        out += start(negated) + bracketClass(body);
        this.i = end;
      } else if (c === "{" && this.braceKind(this.i) !== undefined) {
        out += start(false) + this.brace();
      } else {
        out += start(false) + RE2JS.quote(c);
        this.i++;
      }
    }
    if (closers !== "") throw new GlobSyntaxError("unbalanced", "a brace or extglob group is not closed");
    return out + start(false);
  }

  private segment(): string {
    return `${this.dot ? ANY_MARKER : PLAIN}[^/]*`;
  }

  private endsAlternative(at: number, closers: string): boolean {
    return at >= this.text.length || closers.includes(this.text[at] as string);
  }

  private globstarEnds(at: number, closers: string): boolean {
    return this.text[at] === "/" || this.endsAlternative(at, closers);
  }

  /** `kind(a|b)` starting at `this.i` (the `(` is at `this.i + 1`, or at `this.i` for a bare group). */
  private group(kind: string): string {
    this.i += this.text[this.i] === "(" ? 1 : 2;
    const alternatives = this.alternatives("|)");
    const quantifier = { "@": "", "?": "?", "*": "*", "+": "+" }[kind] ?? "";
    return `(?:${alternatives.join("|")})${quantifier}`;
  }

  private brace(): string {
    const range = this.braceKind(this.i);
    if (range && range !== "list") {
      this.i += range.length;
      return `(?:${range.elements.map((e) => RE2JS.quote(e)).join("|")})`;
    }
    this.i++;
    return `(?:${this.alternatives(",}").join("|")})`;
  }

  /** Alternatives separated by `closers[0]` up to `closers[1]`, which is consumed. */
  private alternatives(closers: string): string[] {
    const out: string[] = [];
    for (;;) {
      out.push(this.sequence(closers));
      const c = this.text[this.i++];
      if (c === closers[1]) return out;
    }
  }

  /** Whether the `(` at `open` has a matching `)`; brackets and escapes are looked through. */
  private closes(open: number): boolean {
    let depth = 0;
    for (let j = open; j < this.text.length; j++) {
      const c = this.text[j];
      if (c === "\\") j++;
      else if (c === "[") j = bracketEnd(this.text, j) - 1;
      else if (c === "(") depth++;
      else if (c === ")" && --depth === 0) return true;
    }
    return false;
  }

  /** A comma list, a range, or undefined when the `{` at `open` is a literal brace. */
  private braceKind(open: number): "list" | { length: number; elements: string[] } | undefined {
    const range = /^\{(?:(-?\d{1,6})\.\.(-?\d{1,6})|([a-zA-Z])\.\.([a-zA-Z]))\}/.exec(
      this.text.slice(open, open + 20),
    );
    if (range) return rangeOf(range);
    let depth = 0;
    for (let j = open; j < this.text.length; j++) {
      const c = this.text[j];
      if (c === "\\") j++;
      else if (c === "[") j = bracketEnd(this.text, j) - 1;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) return undefined;
      else if (c === "," && depth === 1) return "list";
    }
    return undefined;
  }
}

const negatedMessage =
  "negated extglobs `!(...)` are not supported (they cannot be matched in linear time); " +
  "match the wanted names positively instead";

function rangeOf(found: RegExpExecArray): { length: number; elements: string[] } {
  const [whole, from, to, fromChar, toChar] = found;
  const numeric = from !== undefined && to !== undefined;
  const a = numeric ? Number(from) : (fromChar ?? "").charCodeAt(0);
  const b = numeric ? Number(to) : (toChar ?? "").charCodeAt(0);
  if (Math.abs(b - a) + 1 > MAX_RANGE_ELEMENTS) {
    throw new GlobSyntaxError(
      "too-many-alternatives",
      `the range ${whole} has more than ${MAX_RANGE_ELEMENTS} elements`,
    );
  }
  const step = a <= b ? 1 : -1;
  const elements: string[] = [];
  for (let n = a; n !== b + step; n += step) elements.push(numeric ? String(n) : String.fromCharCode(n));
  return { length: whole.length, elements };
}

/** The index just past the bracket expression opening at `i`, or `i + 1` when the `[` is literal. */
export function bracketEnd(text: string, i: number): number {
  let j = i + 1;
  if (text[j] === "!" || text[j] === "^") j++;
  if (text[j] === "]") j++;
  while (j < text.length && text[j] !== "]") {
    if (text[j] === "\\") j++;
    else if (text[j] === "[" && text[j + 1] === ":") {
      const close = text.indexOf(":]", j + 2);
      if (close > 0) j = close + 1;
    }
    j++;
  }
  return j < text.length ? j + 1 : i + 1;
}

/** A bracket body (`!a-z`, `[:alpha:]_`) as an RE2 class that never matches `/`. */
function bracketClass(body: string): string {
  let j = 0;
  let out = "";
  const negated = body[0] === "!" || body[0] === "^";
  if (negated) j++;
  for (; j < body.length; j++) {
    const c = body[j] as string;
    const posix = c === "[" && body[j + 1] === ":" ? body.indexOf(":]", j + 2) : -1;
    if (posix > 0) {
      out += body.slice(j, posix + 2);
      j = posix + 1;
    } else if (c === "\\") {
      const escaped = body[++j] ?? "\\";
      out += /\w/.test(escaped) ? escaped : `\\${escaped}`;
    } else out += "[]^\\".includes(c) ? `\\${c}` : c;
  }
  return negated ? `[^/${out}]` : `[${out}]`;
}
