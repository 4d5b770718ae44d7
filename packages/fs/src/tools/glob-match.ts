import { RE2JS } from "re2js";
import { globToRe2 } from "./glob-compile.js";

/** Whether a `/`-separated relative path (or one name) matches; never true for "". */
export type GlobMatcher = (path: string) => boolean;

/**
 * Compiles a glob for RE2, whose matching time is linear in the path's length for any pattern:
 * picomatch's JavaScript regexes backtrack, and `*a*a*a*a*a*a*a*a*a*a*b` against a name of forty
 * `a`s held the event loop for minutes. A leading `!` (not `!(`) negates the whole pattern.
 * Throws GlobSyntaxError for what is not supported.
 */
export function compileGlob(pattern: string, options: { readonly dot: boolean }): GlobMatcher {
  let body = pattern;
  let negated = false;
  while (body.startsWith("!") && body[1] !== "(") {
    body = body.slice(1);
    negated = !negated;
  }
  while (body.startsWith("./")) body = body.slice(2); // paths are relative already
  const regex = RE2JS.compile(`(?s)${globToRe2(body, options.dot)}`);
  return (path) => path !== "" && regex.matches(markSegments(path)) !== negated;
}

/** Puts a marker before each segment: \x00 before a dot name, \x01 before any other. */
function markSegments(path: string): string {
  return path
    .split("/")
    .map((segment) => (segment.startsWith(".") ? "\x00" : "\x01") + segment)
    .join("/");
}
