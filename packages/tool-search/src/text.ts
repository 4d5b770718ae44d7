/** Words too common in tool descriptions to tell tools apart. */
const STOPWORDS = new Set(
  "a an and are as at be by for from has have if in into is it its of on or that the their then this to was were will with you your can may one when which who all any not no do does returns return given".split(
    " ",
  ),
);

/**
 * Splits text into search terms: identifier boundaries (`snake_case`, `camelCase`, `a.b/c`) and
 * punctuation split, everything is lower-cased, stopwords go, and a light suffix stemmer folds
 * plurals and verb forms (`issues`, `issued` -> `issu`) so differently worded queries meet.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const spaced = /[A-Z]/.test(text)
    ? text
        .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
        .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
        .toLowerCase()
    : text;
  for (const raw of spaced.split(/[^a-z0-9]+/)) {
    if (raw.length === 0 || STOPWORDS.has(raw)) continue;
    let stemmed = STEMS.get(raw);
    if (stemmed === undefined) {
      stemmed = stem(raw);
      if (STEMS.size < 100_000) STEMS.set(raw, stemmed);
    }
    out.push(stemmed);
  }
  return out;
}

/** Stems of words seen so far: tool text repeats a small vocabulary, so this saves most stemming. */
const STEMS = new Map<string, string>();

/** A small, predictable suffix stripper (not Porter): enough to fold plurals and tenses. */
export function stem(word: string): string {
  if (word.length <= 3 || /^\d+$/.test(word)) return word;
  for (const [suffix, replacement, min] of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= min)
      return word.slice(0, -suffix.length) + replacement;
  }
  return word;
}

const SUFFIXES: ReadonlyArray<readonly [string, string, number]> = [
  ["ational", "ate", 3],
  ["ations", "ate", 3],
  ["ation", "ate", 3],
  ["ments", "", 4],
  ["ment", "", 4],
  ["ingly", "", 3],
  ["ings", "", 3],
  ["ing", "", 3],
  ["ies", "y", 2],
  ["ied", "y", 2],
  ["ers", "er", 3],
  ["sses", "ss", 2],
  ["ed", "", 3],
  ["es", "", 3],
  ["ly", "", 4],
  ["s", "", 3],
  ["e", "", 3],
];

/**
 * Query-side synonyms for the verbs and nouns tool descriptions use most, in stemmed form. A
 * query term also matches its synonyms at a lower weight, so "remove a ticket" finds a tool
 * described as "delete an issue".
 */
const SYNONYM_GROUPS: readonly string[] = [
  "create add new make insert register open start submit",
  "delete remove erase drop destroy purge discard",
  "update edit modify change alter patch rename adjust set",
  "get fetch retrieve read show view look inspect detail describe lookup",
  "list enumerate browse index catalog",
  "search find query locate filter discover match",
  "send post deliver dispatch publish notify message",
  "archive close resolve finish complete",
  "restore reopen undelete recover unarchive",
  "export download dump backup extract",
  "import upload load ingest",
  "run execute trigger launch invoke",
  "stop cancel abort halt kill terminate",
  "schedule plan book calendar",
  "assign allocate delegate",
  "issue ticket bug incident",
  "file document attachment",
  "user member account person people",
  "contact person lead customer client",
  "message chat note",
  "invoice bill billing charge",
  "payment transaction charge",
  "repository repo project codebase",
  "comment reply remark",
  "log event record trace",
  "metric measure stat statistic",
  "alert alarm warning",
  "permission access right role",
  "folder directory",
  "email mail",
  "web internet url page site http",
  "fetch download retrieve",
];

// Built on the first search, not at import: stemming every group costs about 2 ms of the start of
// every `pablo` command, most of which never search.
let synonyms: ReadonlyMap<string, readonly string[]> | undefined;

export function synonymsOf(term: string): readonly string[] {
  synonyms ??= buildSynonyms();
  return synonyms.get(term) ?? [];
}

function buildSynonyms(): ReadonlyMap<string, readonly string[]> {
  const map = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const terms = group.split(" ").map(stem);
    for (const term of terms) {
      const set = map.get(term) ?? new Set<string>();
      for (const other of terms) if (other !== term) set.add(other);
      map.set(term, set);
    }
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
}
