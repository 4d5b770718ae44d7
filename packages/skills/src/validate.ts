import { SkillCode } from "./codes.js";
import {
  MAX_COMPATIBILITY_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  SKILL_NAME_PATTERN,
} from "./limits.js";
import { previewValue } from "./preview.js";

/** The fields of a valid frontmatter. None of them grants a capability. */
export interface SkillFields {
  readonly name: string;
  readonly description: string;
  readonly license?: string;
  readonly compatibility?: string;
  readonly metadata?: Record<string, string>;
  readonly allowedTools?: string[];
  readonly otherFields?: Record<string, string>;
}

/** A problem found in the frontmatter, before it is placed in a file. */
export interface FieldProblem {
  readonly severity: "error" | "warning";
  readonly code: SkillCode;
  readonly field?: string;
  readonly message: string;
  readonly fix: string;
}

const SPEC_FIELDS = new Set(["name", "description", "license", "compatibility", "metadata", "allowed-tools"]);

/**
 * Checks parsed frontmatter against the Agent Skills specification. `folder` is the package
 * folder's name, which `name` must equal. Returns the fields when there is no error, and every
 * problem found (not only the first), so an author can fix them in one pass.
 */
export function validateFrontmatter(
  data: Readonly<Record<string, unknown>>,
  folder: string,
  sourceOf: (field: string) => string | undefined = () => undefined,
): { fields?: SkillFields; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const name = checkName(data, folder, problems);
  const description = checkText(data, "description", MAX_DESCRIPTION_LENGTH, true, problems);
  const license = checkText(data, "license", Number.POSITIVE_INFINITY, false, problems);
  const compatibility = checkText(data, "compatibility", MAX_COMPATIBILITY_LENGTH, false, problems);
  const metadata = checkMetadata(data, problems, sourceOf);
  const allowedTools = checkAllowedTools(data, problems);
  const otherFields = checkOtherFields(data, problems);
  if (problems.some((p) => p.severity === "error") || name === undefined || description === undefined) {
    return { problems };
  }
  return {
    fields: {
      name,
      description,
      ...(license === undefined ? {} : { license }),
      ...(compatibility === undefined ? {} : { compatibility }),
      ...(metadata === undefined ? {} : { metadata }),
      ...(allowedTools === undefined ? {} : { allowedTools }),
      ...(otherFields === undefined ? {} : { otherFields }),
    },
    problems,
  };
}

/**
 * Splits an `allowed-tools` string into tool tokens on whitespace outside parentheses, so an
 * argument pattern such as `Bash(git log:*)` stays one token. Metadata only.
 */
export function parseAllowedTools(value: string): string[] {
  const tokens: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of value) {
    if (char === "(") depth++;
    else if (char === ")" && depth > 0) depth--;
    if (/\s/.test(char) && depth === 0) {
      if (current.length > 0) tokens.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  if (current.length > 0) tokens.push(current);
  return tokens;
}

function checkName(data: Readonly<Record<string, unknown>>, folder: string, out: FieldProblem[]) {
  const error = (code: SkillCode, message: string, fix: string) =>
    out.push({ severity: "error", code, field: "name", message, fix });
  const value = own(data, "name");
  const suggestion = suggestName(typeof value === "string" ? value : folder);
  if (value === undefined) {
    error(SkillCode.MISSING_FIELD, "the required field `name` is missing", `add \`name: ${suggestion}\``);
    return undefined;
  }
  if (typeof value !== "string") {
    error(
      SkillCode.INVALID_FIELD_TYPE,
      `\`name\` must be a string, not ${typeName(value)}`,
      `write \`name: ${suggestion}\``,
    );
    return undefined;
  }
  const before = out.length;
  const length = [...value].length;
  if (length === 0) error(SkillCode.FIELD_EMPTY, "`name` is empty", `write \`name: ${suggestion}\``);
  if (length > MAX_NAME_LENGTH) {
    error(
      SkillCode.FIELD_TOO_LONG,
      `\`name\` is ${length} characters; the limit is ${MAX_NAME_LENGTH}`,
      "shorten the name (and rename the folder to match)",
    );
  }
  if (/[A-Z]/.test(value)) {
    error(
      SkillCode.NAME_UPPERCASE,
      `\`name\` ${JSON.stringify(value)} has upper-case letters`,
      `use lower case: \`name: ${suggestion}\` (and rename the folder to match)`,
    );
  }
  if (/[^A-Za-z0-9-]/.test(value)) {
    error(
      SkillCode.NAME_CHARACTERS,
      `\`name\` ${JSON.stringify(value)} has characters other than a-z, 0-9 and "-"`,
      `use only lower-case letters, digits and single hyphens: \`name: ${suggestion}\``,
    );
  }
  if (value.startsWith("-") || value.endsWith("-") || value.includes("--")) {
    error(
      SkillCode.NAME_HYPHENS,
      `\`name\` ${JSON.stringify(value)} ${value.includes("--") ? "has two hyphens in a row" : "starts or ends with a hyphen"}`,
      `join words with single hyphens and none at either end: \`name: ${suggestion}\``,
    );
  }
  if (value !== folder) {
    const folderValid = SKILL_NAME_PATTERN.test(folder) && folder.length <= MAX_NAME_LENGTH;
    error(
      SkillCode.NAME_MISMATCH,
      `\`name\` is ${JSON.stringify(value)} but the package folder is ${JSON.stringify(folder)}; they must be equal`,
      folderValid
        ? `set \`name: ${folder}\`, or rename the folder to ${JSON.stringify(value)}`
        : `rename the folder and set \`name\` to the same valid name, for example ${JSON.stringify(suggestion)}`,
    );
  }
  return out.length === before ? value : undefined;
}

function checkText(
  data: Readonly<Record<string, unknown>>,
  field: string,
  max: number,
  required: boolean,
  out: FieldProblem[],
): string | undefined {
  const error = (code: SkillCode, message: string, fix: string) =>
    out.push({ severity: "error", code, field, message, fix });
  const value = own(data, field);
  if (value === undefined) {
    if (required) {
      error(
        SkillCode.MISSING_FIELD,
        `the required field \`${field}\` is missing`,
        `add \`${field}:\` saying what the skill does and when to use it`,
      );
    }
    return undefined;
  }
  if (typeof value !== "string") {
    error(
      SkillCode.INVALID_FIELD_TYPE,
      `\`${field}\` must be a string, not ${typeName(value)}`,
      `write \`${field}\` as one string (quote it if needed)`,
    );
    return undefined;
  }
  if (value.trim().length === 0 && (required || field === "compatibility")) {
    error(
      SkillCode.FIELD_EMPTY,
      `\`${field}\` is empty`,
      required ? `say what the skill does and when to use it` : `remove \`${field}\` or fill it in`,
    );
    return undefined;
  }
  const length = [...value].length;
  if (length > max) {
    error(
      SkillCode.FIELD_TOO_LONG,
      `\`${field}\` is ${length} characters; the limit is ${max}`,
      `shorten \`${field}\` by at least ${length - max} character${length - max === 1 ? "" : "s"}; move detail into the body`,
    );
    return undefined;
  }
  return value;
}

function checkMetadata(
  data: Readonly<Record<string, unknown>>,
  out: FieldProblem[],
  sourceOf: (field: string) => string | undefined,
): Record<string, string> | undefined {
  const value = own(data, "metadata");
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    out.push({
      severity: "error",
      code: SkillCode.INVALID_FIELD_TYPE,
      field: "metadata",
      message: `\`metadata\` must be a map of strings to strings, not ${typeName(value)}`,
      fix: 'write `metadata:` followed by indented `key: "value"` lines',
    });
    return undefined;
  }
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry === "string") {
      result[key] = entry;
      continue;
    }
    // Tolerated when loading (metadata grants nothing), so the value is only left out.
    out.push({
      severity: "warning",
      code: SkillCode.METADATA_VALUE,
      field: `metadata.${key}`,
      message: `\`metadata.${key}\` must be a string, not ${typeName(entry)}; it is left out of the skill's metadata`,
      fix:
        entry !== null && typeof entry === "object"
          ? `flatten it into string values (for example \`${key}-name: "..."\`)`
          : `quote the value: \`${key}: "${sourceOf(`metadata.${key}`) ?? String(entry)}"\``,
    });
  }
  return result;
}

function checkAllowedTools(
  data: Readonly<Record<string, unknown>>,
  out: FieldProblem[],
): string[] | undefined {
  const value = own(data, "allowed-tools");
  if (value === undefined) return undefined;
  if (typeof value === "string") return parseAllowedTools(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
    // Read, because a list can only narrow the tools (see allowedToolsLayer); each item is split
    // as the string form would be, so `- Bash(git log:*)` stays one token.
    const tokens = value.flatMap((item: string) => parseAllowedTools(item));
    out.push({
      severity: "warning",
      code: SkillCode.ALLOWED_TOOLS_LIST,
      field: "allowed-tools",
      message:
        "`allowed-tools` is a YAML list; the specification requires one space-separated string (Pablo reads the list, other agents may not)",
      fix:
        tokens.length > 0
          ? `write \`allowed-tools: ${tokens.join(" ")}\``
          : "write `allowed-tools` as one space-separated string of tool names, or remove it",
    });
    return tokens;
  }
  out.push({
    severity: "error",
    code: SkillCode.INVALID_FIELD_TYPE,
    field: "allowed-tools",
    message: `\`allowed-tools\` must be a space-separated string, not ${Array.isArray(value) ? "a list with items that are not strings" : typeName(value)}`,
    fix: "write `allowed-tools: Read Grep` (tool names separated by spaces)",
  });
  return undefined;
}

function checkOtherFields(
  data: Readonly<Record<string, unknown>>,
  out: FieldProblem[],
): Record<string, string> | undefined {
  const other: Record<string, string> = {};
  let any = false;
  for (const key of Object.keys(data)) {
    if (SPEC_FIELDS.has(key)) continue;
    any = true;
    other[key] = previewValue(data[key]);
    out.push({
      severity: "warning",
      code: SkillCode.UNKNOWN_FIELD,
      field: key,
      message: `\`${key}\` is not an Agent Skills field; Pablo reports it and it grants nothing`,
      fix: `move it under \`metadata\` as a string, or remove it`,
    });
  }
  return any ? other : undefined;
}

function own(data: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(data, key) ? data[key] : undefined;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  return `a ${typeof value}`;
}

/** A spec-valid name derived from `text`, for fix suggestions. */
export function suggestName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-+$/, "");
  return name.length > 0 ? name : "my-skill";
}
