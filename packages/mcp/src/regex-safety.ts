/** Longest `pattern` accepted from a server. */
export const MAX_PATTERN_CHARS = 256;
/** Most unbounded quantifiers (`*`, `+`, `{n,}`) one pattern may use. */
const MAX_UNBOUNDED = 2;

/**
 * Why a server-declared `pattern` could backtrack catastrophically in V8's backtracking engine
 * (which typebox uses to validate), or undefined when it is accepted. Accepted patterns compile
 * with the `u` flag and have no backreferences or lookaround, no quantified group containing a
 * quantifier or an alternation (`(a+)+`, `(a|aa)*`), and at most two unbounded quantifiers.
 * This rules out exponential backtracking; polynomial backtracking remains possible, which is
 * why a string with a pattern also gets a bounded `maxLength` (see the schema subset).
 */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_CHARS) return `pattern longer than ${MAX_PATTERN_CHARS} characters`;
  try {
    new RegExp(pattern, "u");
  } catch {
    return "pattern does not compile as a Unicode regular expression";
  }
  if (/\\[1-9]|\\k</.test(pattern)) return "pattern uses a backreference";
  if (/\(\?<?[=!]/.test(pattern)) return "pattern uses lookaround";
  return scanGroups(pattern);
}

interface GroupState {
  hasQuantifier: boolean;
  hasAlternation: boolean;
}

function scanGroups(pattern: string): string | undefined {
  const stack: GroupState[] = [{ hasQuantifier: false, hasAlternation: false }];
  let unbounded = 0;
  let i = 0;
  let closed: GroupState | undefined;
  while (i < pattern.length) {
    const ch = pattern[i];
    const quantifier = quantifierAt(pattern, i);
    if (quantifier) {
      const top = stack[stack.length - 1];
      if (top) top.hasQuantifier = true;
      if (closed && (closed.hasQuantifier || closed.hasAlternation) && quantifier.repeats) {
        return "pattern repeats a group that itself contains a quantifier or alternation";
      }
      if (quantifier.unbounded && ++unbounded > MAX_UNBOUNDED) {
        return `pattern has more than ${MAX_UNBOUNDED} unbounded quantifiers`;
      }
      closed = undefined;
      i += quantifier.length;
      continue;
    }
    closed = undefined;
    if (ch === "\\") {
      i += 2;
    } else if (ch === "[") {
      i = skipClass(pattern, i);
    } else if (ch === "(") {
      stack.push({ hasQuantifier: false, hasAlternation: false });
      i += groupOpenerLength(pattern, i);
    } else if (ch === ")") {
      closed = stack.pop();
      const parent = stack[stack.length - 1];
      if (parent && closed) {
        parent.hasQuantifier ||= closed.hasQuantifier;
        parent.hasAlternation ||= closed.hasAlternation;
      }
      i += 1;
    } else {
      if (ch === "|") {
        const top = stack[stack.length - 1];
        if (top) top.hasAlternation = true;
      }
      i += 1;
    }
  }
  return undefined;
}

function quantifierAt(
  pattern: string,
  i: number,
): { length: number; unbounded: boolean; repeats: boolean } | undefined {
  const ch = pattern[i];
  let length = 0;
  let unbounded = false;
  let repeats = true;
  if (ch === "*" || ch === "+") {
    length = 1;
    unbounded = true;
  } else if (ch === "?") {
    length = 1;
    repeats = false;
  } else if (ch === "{") {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
    if (!match) return undefined;
    length = match[0].length;
    unbounded = match[2] !== undefined && match[3] === "";
    repeats = unbounded || Number(match[3] ?? match[1]) > 1;
  } else {
    return undefined;
  }
  if (pattern[i + length] === "?") length += 1; // lazy form
  return { length, unbounded, repeats };
}

/** `(`, `(?:` or `(?<name>`: the modifier's `?` is not a quantifier. */
function groupOpenerLength(pattern: string, i: number): number {
  if (pattern[i + 1] !== "?") return 1;
  if (pattern[i + 2] === ":") return 3;
  const named = /^\(\?<[A-Za-z_$][\w$]*>/.exec(pattern.slice(i));
  return named ? named[0].length : 2;
}

function skipClass(pattern: string, start: number): number {
  let i = start + 1;
  while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
  return i + 1;
}
