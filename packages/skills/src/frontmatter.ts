import matter from "gray-matter";
import { SkillCode } from "./codes.js";
import { type KeyLocation, parseYaml, type YamlOutcome } from "./yaml-parse.js";

/** A SKILL.md split into its parsed frontmatter and its Markdown body. */
export interface ParsedFrontmatter {
  readonly ok: true;
  /** The top-level fields. Empty when the frontmatter block is empty or only comments. */
  readonly data: Readonly<Record<string, unknown>>;
  /** Where each top-level field (and each key one level below, `metadata.version`) is in the file. */
  readonly fields: ReadonlyMap<string, KeyLocation>;
  /** The raw frontmatter text between the delimiters. */
  readonly matter: string;
  /** The Markdown after the closing delimiter line. */
  readonly body: string;
  /** 1-based line on which the body starts. */
  readonly bodyLine: number;
}

export interface FrontmatterProblem {
  readonly ok: false;
  readonly code: SkillCode;
  readonly message: string;
  readonly fix: string;
  readonly line?: number;
}

/** Where the frontmatter ends, found before anything is parsed. */
export type FrontmatterBounds =
  | { readonly ok: true; readonly end: number }
  | { readonly ok: false; readonly problem: FrontmatterProblem };

const YAML_LANGUAGES = new Set(["", "yaml", "yml"]);

/**
 * Finds the end of the closing delimiter line, applying gray-matter's own rules (an opening
 * `---` line, the first later line starting with `---` closes) plus Pablo's: the opening line
 * may name only YAML, and the closing line must be exactly `---`. `end` is the offset just past
 * the closing line, so discovery can read and parse only that prefix.
 */
export function frontmatterBounds(text: string): FrontmatterBounds {
  const problem = (code: SkillCode, message: string, fix: string, line?: number): FrontmatterBounds => ({
    ok: false,
    problem: { ok: false, code, message, fix, ...(line === undefined ? {} : { line }) },
  });
  if (!text.startsWith("---") || text[3] === "-") {
    return problem(
      SkillCode.NO_FRONTMATTER,
      "SKILL.md does not start with YAML frontmatter (a first line of exactly `---`)",
      "start the file with `---`, then `name:` and `description:` lines, then a closing `---` line",
      1,
    );
  }
  const firstBreak = text.indexOf("\n");
  const opening = (firstBreak === -1 ? text : text.slice(0, firstBreak)).replace(/\r$/, "");
  const language = opening.slice(3).trim();
  if (!YAML_LANGUAGES.has(language.toLowerCase())) {
    return problem(
      SkillCode.FRONTMATTER_LANGUAGE,
      `the frontmatter is declared as ${JSON.stringify(language)}; only YAML frontmatter is read, and nothing in it is ever evaluated`,
      "write the frontmatter as YAML and make the first line exactly `---`",
      1,
    );
  }
  const close = firstBreak === -1 ? -1 : text.indexOf("\n---", firstBreak);
  if (close === -1) {
    return problem(
      SkillCode.FRONTMATTER_NOT_CLOSED,
      "the frontmatter has no closing `---` line",
      "add a line of exactly `---` after the last frontmatter field",
    );
  }
  const lineEnd = text.indexOf("\n", close + 1);
  const closing = (lineEnd === -1 ? text.slice(close + 1) : text.slice(close + 1, lineEnd)).replace(
    /\r$/,
    "",
  );
  if (closing.trimEnd() !== "---") {
    return problem(
      SkillCode.FRONTMATTER_NOT_CLOSED,
      `the frontmatter's closing line is ${JSON.stringify(closing.slice(0, 40))}, not exactly \`---\``,
      "end the frontmatter with a line of exactly `---`; quote YAML values that start with `---`",
      lineNumber(text, close + 1),
    );
  }
  return { ok: true, end: lineEnd === -1 ? text.length : lineEnd + 1 };
}

/**
 * Parses a SKILL.md (or the prefix of one that ends at its closing delimiter) with gray-matter
 * configured so that only YAML is ever parsed: every engine gray-matter could pick by name,
 * JavaScript included, is replaced, and the YAML engine is Pablo's bounded parser.
 */
export function parseFrontmatter(text: string): ParsedFrontmatter | FrontmatterProblem {
  const bounds = frontmatterBounds(text);
  if (!bounds.ok) return bounds.problem;
  let split: YamlOnlyMatter;
  try {
    split = yamlOnlyMatter(text);
  } catch (error) {
    return {
      ok: false,
      code: SkillCode.FRONTMATTER_LANGUAGE,
      message: `the frontmatter was refused: ${error instanceof Error ? error.message : String(error)}`,
      fix: "write the frontmatter as YAML and make the first line exactly `---`",
      line: 1,
    };
  }
  const { yaml, file } = split;
  // gray-matter skips the engine when the block is empty or only comments.
  const outcome: YamlOutcome = yaml ?? { ok: true, value: {}, keys: new Map() };
  // The matter handed to the engine starts with the line break that ends the opening `---`
  // line, so line N of the matter is line N of the file.
  if (!outcome.ok) return outcome;
  const { value } = outcome;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      ok: false,
      code: SkillCode.FRONTMATTER_NOT_MAPPING,
      message: `the frontmatter is a YAML ${value === null ? "null" : Array.isArray(value) ? "list" : typeof value}, not a mapping of fields`,
      fix: "write the frontmatter as `key: value` lines, starting with `name:` and `description:`",
      line: 2,
    };
  }
  const bodyStart = text.length - file.content.length;
  return {
    ok: true,
    data: value as Record<string, unknown>,
    fields: outcome.keys,
    matter: file.matter,
    body: file.content,
    bodyLine: lineNumber(text, bodyStart),
  };
}

/** What gray-matter split off, and the YAML outcome when its engine ran. */
export interface YamlOnlyMatter {
  readonly file: { readonly matter: string; readonly content: string };
  readonly yaml: YamlOutcome | undefined;
}

/**
 * gray-matter with every engine it could select by name replaced: YAML goes to the bounded
 * parser, anything else (JavaScript included, under any alias) throws before it is parsed. This
 * is the second line of defence; {@link frontmatterBounds} refuses other languages first.
 */
export function yamlOnlyMatter(text: string): YamlOnlyMatter {
  let yaml: YamlOutcome | undefined;
  // Options are always passed, which also keeps gray-matter from caching file contents.
  const file = matter(text, { language: "yaml", engines: yamlOnlyEngines((outcome) => (yaml = outcome)) });
  return { file, yaml };
}

type Engine = (input: string) => object;

function yamlOnlyEngines(record: (outcome: YamlOutcome) => void): Record<string, Engine> {
  const yamlEngine: Engine = (source) => {
    // gray-matter cuts at "\n---", so with CRLF line ends the block ends in a lone "\r" that
    // YAML would keep in the last value.
    record(parseYaml(source.endsWith("\r") ? source.slice(0, -1) : source));
    // gray-matter keeps whatever the engine returns; the real outcome travels through `record`.
    return {};
  };
  const refuse =
    (language: string): Engine =>
    () => {
      throw new Error(`frontmatter language ${JSON.stringify(language)} is not accepted; only YAML is`);
    };
  return {
    yaml: yamlEngine,
    yml: yamlEngine,
    // gray-matter's defaults evaluate these as code or parse them loosely; never reachable, even by alias.
    javascript: refuse("javascript"),
    js: refuse("js"),
    json: refuse("json"),
    coffee: refuse("coffee"),
    coffeescript: refuse("coffeescript"),
    cson: refuse("cson"),
    toml: refuse("toml"),
  };
}

function lineNumber(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
