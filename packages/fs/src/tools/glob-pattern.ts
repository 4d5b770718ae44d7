import { ErrorCode, fail, type ToolFailure } from "@pablo/kernel";
import { GlobSyntaxError } from "./glob-compile.js";
import { compileGlob, type GlobMatcher } from "./glob-match.js";

/** More brace alternatives than this is refused: checking them all would be unbounded work. */
export const MAX_BRACE_ALTERNATIVES = 1024;

/**
 * Refuses a fs.glob pattern that is absolute or has a segment that can only mean `..`, however it
 * is spelled: `../x`, `{src,../x}/*`, `@(a|..)/x`, `[.][.]/x`, `.[.]/x`, `\.\./x`. The walk never
 * yields such a segment, so these patterns would silently match nothing; the model is told why
 * instead. Wildcard segments that could also match `..` (`.*`) are ordinary patterns for dot names
 * and are allowed. A leading `!` (the whole pattern's negation) is looked through.
 */
export function refuseGlobPattern(pattern: string): ToolFailure | undefined {
  const body = pattern.replace(/^!+/, "");
  if (body.startsWith("/")) return refusal(pattern, "absolute", "the pattern must be relative to `path`");
  // `..` as a whole token between separators, also inside brace or extglob alternatives; `{1..3}`
  // (a range) and `a..b` are not tokens.
  if (/(^|[/{},(|])\.\.(?=$|[/{},)|])/.test(body)) return parentRefusal(pattern, "..");
  const alternatives = expandBraces(body, MAX_BRACE_ALTERNATIVES);
  if (alternatives === undefined) {
    return refusal(
      pattern,
      "too-many-alternatives",
      `the pattern expands to more than ${MAX_BRACE_ALTERNATIVES} brace alternatives`,
    );
  }
  for (const alternative of alternatives) {
    if (alternative.startsWith("/")) {
      return refusal(pattern, "absolute", `the alternative ${JSON.stringify(alternative)} is absolute`);
    }
    const segment = splitSegments(alternative).find(isParentSegment);
    if (segment !== undefined) return parentRefusal(pattern, segment);
  }
  return undefined;
}

function parentRefusal(pattern: string, segment: string): ToolFailure {
  const what =
    segment === ".."
      ? 'a pattern may not contain a ".." segment'
      : `the segment ${JSON.stringify(segment)} spells "..", which a pattern may not contain`;
  return refusal(
    pattern,
    "parent-segment",
    `${what}; patterns match paths under \`path\`, so pass the directory to search as \`path\` instead`,
    segment,
  );
}

/**
 * The one way the fs tools turn a glob into a matcher (fs.glob's pattern, fs.search's include):
 * linear-time RE2 matching, or INVALID_ARGUMENT with a stable `reason` for what is unsupported.
 */
export function compileGlobPattern(
  pattern: string,
  options: { readonly dot: boolean },
): GlobMatcher | ToolFailure {
  try {
    return compileGlob(pattern, options);
  } catch (error) {
    if (error instanceof GlobSyntaxError) return refusal(pattern, error.reason, error.message);
    return refusal(pattern, "invalid-syntax", `the pattern does not compile: ${String(error)}`);
  }
}

function refusal(pattern: string, reason: string, message: string, segment?: string): ToolFailure {
  return fail(ErrorCode.INVALID_ARGUMENT, `invalid pattern: ${message}`, {
    pattern,
    reason,
    ...(segment === undefined ? {} : { segment }),
  });
}

/** A segment without wildcards that the matcher itself would match against the name `..`. */
function isParentSegment(segment: string): boolean {
  if (hasWildcard(segment)) return false;
  const matcher = compileGlobPattern(segment, { dot: true });
  return typeof matcher === "function" && matcher("..");
}

/**
 * An unescaped `*`, `?`, negated extglob `!(` or negated bracket `[!...]`: each matches other
 * names than `..` too, so a segment holding one is an ordinary pattern.
 */
function hasWildcard(segment: string): boolean {
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === "\\") i++;
    else if (c === "[" && (segment[i + 1] === "!" || segment[i + 1] === "^")) return true;
    else if (c === "[") i = skipBracket(segment, i) - 1;
    else if (c === "*" || c === "?" || (c === "!" && segment[i + 1] === "(")) return true;
  }
  return false;
}

/** Splits on `/` outside bracket expressions and escapes. */
function splitSegments(text: string): string[] {
  const segments: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") i = skipBracket(text, i) - 1;
    else if (c === "/") {
      segments.push(text.slice(start, i));
      start = i + 1;
    }
  }
  segments.push(text.slice(start));
  return segments;
}

/** The index just past the bracket expression opening at `i`, or `i + 1` when the `[` is literal. */
function skipBracket(text: string, i: number): number {
  let j = i + 1;
  if (text[j] === "!" || text[j] === "^") j++;
  if (text[j] === "]") j++;
  while (j < text.length && text[j] !== "]") {
    if (text[j] === "\\") j++;
    j++;
  }
  return j < text.length ? j + 1 : i + 1;
}

/**
 * Every alternative of the comma lists in braces (`a{b,c{d,e}}` is `ab`, `acd`, `ace`); braces
 * without a top-level comma (`{1..3}`, `{a}`) are kept as written. Undefined past `limit`.
 */
function expandBraces(text: string, limit: number): string[] | undefined {
  const found = firstList(text);
  if (!found) return [text];
  const prefix = text.slice(0, found.open);
  const suffix = text.slice(found.close + 1);
  const out: string[] = [];
  for (const alternative of found.alternatives) {
    const expanded = expandBraces(prefix + alternative + suffix, limit - out.length);
    if (expanded === undefined || out.length + expanded.length > limit) return undefined;
    out.push(...expanded);
  }
  return out;
}

/** The first brace pair holding a top-level comma, with its alternatives. */
function firstList(text: string): { open: number; close: number; alternatives: string[] } | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") i = skipBracket(text, i) - 1;
    else if (c === "{") {
      const list = braceList(text, i);
      if (list && list.alternatives.length > 1) return list;
      if (list) i = list.close;
    }
  }
  return undefined;
}

function braceList(
  text: string,
  open: number,
): { open: number; close: number; alternatives: string[] } | undefined {
  let depth = 0;
  let start = open + 1;
  const alternatives: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") i = skipBracket(text, i) - 1;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      alternatives.push(text.slice(start, i));
      return { open, close: i, alternatives };
    } else if (c === "," && depth === 1) {
      alternatives.push(text.slice(start, i));
      start = i + 1;
    }
  }
  return undefined;
}
