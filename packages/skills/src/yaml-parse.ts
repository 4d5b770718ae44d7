import { isMap, isScalar, LineCounter, type Node, parseDocument } from "yaml";
import { SkillCode } from "./codes.js";
import { MAX_YAML_ALIAS_COUNT } from "./limits.js";

/** Where a key is, and the source text of its value when that is a scalar. */
export interface KeyLocation {
  readonly line: number;
  readonly source?: string;
}

/**
 * Parsed YAML: a value plus, for precise diagnostics, the location of each top-level key and of
 * each key one level below (`metadata.version`).
 */
export type YamlOutcome =
  | { readonly ok: true; readonly value: unknown; readonly keys: ReadonlyMap<string, KeyLocation> }
  | {
      readonly ok: false;
      readonly code: SkillCode;
      readonly message: string;
      readonly fix: string;
      readonly line?: number;
    };

/**
 * Parses YAML 1.2 with the core schema only. Explicit tags outside it (`!!js/function`,
 * `!!binary`, `!custom`) are refused instead of resolved, duplicate keys are errors, and alias
 * expansion is bounded so a billion-laughs document fails fast instead of exploding when its value
 * is walked or serialized. Lines are 1-based within `source`.
 */
export function parseYaml(source: string): YamlOutcome {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, {
    lineCounter,
    schema: "core",
    resolveKnownTags: false,
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
  });
  const lineAt = (offset: number | undefined): number | undefined =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;
  const firstError = doc.errors[0];
  if (firstError) {
    return {
      ok: false,
      code: SkillCode.INVALID_YAML,
      message: `the frontmatter is not valid YAML: ${firstLine(firstError.message)}`,
      fix: "fix the YAML syntax; quote values that contain `: ` or start with a special character",
      ...optionalLine(lineAt(firstError.pos[0])),
    };
  }
  const firstWarning = doc.warnings[0];
  if (firstWarning) {
    const tag = firstWarning.code === "TAG_RESOLVE_FAILED";
    return {
      ok: false,
      code: tag ? SkillCode.YAML_TAG : SkillCode.INVALID_YAML,
      message: tag
        ? `the frontmatter uses a YAML tag outside the core schema: ${firstLine(firstWarning.message)}`
        : `the frontmatter YAML is ambiguous: ${firstLine(firstWarning.message)}`,
      fix: tag
        ? "remove the explicit tag (`!!...` or `!...`); write the value as a plain string"
        : "fix the YAML",
      ...optionalLine(lineAt(firstWarning.pos[0])),
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    const alias = error instanceof ReferenceError;
    return {
      ok: false,
      code: alias ? SkillCode.YAML_ALIAS_LIMIT : SkillCode.INVALID_YAML,
      message: alias
        ? `the frontmatter's YAML aliases expand past the bound of ${MAX_YAML_ALIAS_COUNT} (a resource exhaustion attempt, or far more aliasing than frontmatter needs)`
        : `the frontmatter YAML could not be read: ${firstLine(String(error))}`,
      fix: alias ? "write the values out instead of using anchors (&) and aliases (*)" : "fix the YAML",
    };
  }
  const keys = new Map<string, KeyLocation>();
  const record = (map: Node | null | undefined, prefix: string, nested: boolean) => {
    if (!isMap(map)) return;
    for (const pair of map.items) {
      if (!isScalar(pair.key)) continue;
      const line = lineAt(pair.key.range?.[0]);
      if (line === undefined) continue;
      const name = `${prefix}${String(pair.key.value)}`;
      const value = pair.value as Node | null;
      const range = isScalar(value) ? value.range : undefined;
      keys.set(name, range ? { line, source: source.slice(range[0], range[1]) } : { line });
      if (nested) record(value, `${name}.`, false);
    }
  };
  record(doc.contents, "", true);
  return { ok: true, value, keys };
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? text;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function optionalLine(line: number | undefined): { line?: number } {
  return line === undefined ? {} : { line };
}
