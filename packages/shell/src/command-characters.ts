import type { UnprovenConstruct } from "./unproven-construct.js";

const SUSPECT = /[\p{Cc}\p{Cf}\p{Cs}\p{Z}]/gu;

/**
 * Finds the first character a literal parser must not reason about: control characters (other
 * than tab and line feed), invisible format characters (bidirectional overrides, zero-width
 * joiners), unpaired surrogates, and whitespace other than the ASCII space, all of which make a
 * command read differently from how the shell runs it.
 */
export function checkCharacters(text: string): UnprovenConstruct | undefined {
  for (const match of text.matchAll(SUSPECT)) {
    const c = match[0];
    if (c === " " || c === "\t" || c === "\n") continue;
    const offset = match.index ?? 0;
    if (/\p{Z}/u.test(c)) return { construct: "non-ASCII whitespace", offset };
    if (/\p{Cs}/u.test(c)) return { construct: "invalid Unicode", offset };
    return { construct: "control character", offset };
  }
  return undefined;
}
