import { MAX_PATTERN_LENGTH, patternProblem } from "@pablo/shell/redact";
import { RE2JS } from "re2js";
import Type, { type TSchema } from "typebox";
import type { FilterName } from "./catalog-schema.js";

/** The filter inputs of one call; each is accepted only when the action declares it. */
export interface FilterInput {
  readonly match?: string;
  readonly exclude?: string;
  readonly tail?: number;
  readonly head?: number;
  readonly count?: boolean;
}

/** Largest `head` / `tail` line count. */
export const MAX_FILTER_LINES = 100_000;

const FILTER_SCHEMAS: Record<FilterName, () => TSchema> = {
  match: () =>
    Type.String({
      minLength: 1,
      maxLength: MAX_PATTERN_LENGTH,
      description: "Keep only output lines matching this RE2 pattern (at most 200 characters).",
    }),
  exclude: () =>
    Type.String({
      minLength: 1,
      maxLength: MAX_PATTERN_LENGTH,
      description: "Drop output lines matching this RE2 pattern (at most 200 characters).",
    }),
  tail: () =>
    Type.Integer({
      minimum: 1,
      maximum: MAX_FILTER_LINES,
      description: "Keep only the last N lines. Excludes head and count.",
    }),
  head: () =>
    Type.Integer({
      minimum: 1,
      maximum: MAX_FILTER_LINES,
      description: "Keep only the first N lines. Excludes tail and count.",
    }),
  count: () =>
    Type.Boolean({
      description: "Return only the number of lines (after match/exclude). Excludes head and tail.",
    }),
};

/** Top-level input properties for the declared filters, all optional. */
export function filterProperties(declared: readonly FilterName[]): Record<string, TSchema> {
  const out: Record<string, TSchema> = {};
  for (const name of declared) out[name] = Type.Optional(FILTER_SCHEMAS[name]());
  return out;
}

/**
 * Why a call's filters are refused, or undefined. `tail`, `head` and `count` exclude each other by
 * field presence: `count: false` next to `head` is refused too, so a caller never has to guess
 * which one wins. Patterns must be RE2.
 */
export function filterProblem(input: FilterInput, declared: readonly FilterName[]): string | undefined {
  for (const name of Object.keys(input) as FilterName[]) {
    if (!declared.includes(name)) return `filter ${name} is not declared by this action`;
  }
  const present = (["tail", "head", "count"] as const).filter((name) => input[name] !== undefined);
  if (present.length > 1) return `filters ${present.join(" and ")} are mutually exclusive`;
  for (const name of ["match", "exclude"] as const) {
    const source = input[name];
    if (source === undefined) continue;
    const problem = patternProblem(source);
    if (problem) return `filter ${name}: ${problem}`;
  }
  return undefined;
}

export interface FilteredText {
  readonly text: string;
  /** Lines left after match and exclude, before head or tail. */
  readonly lines: number;
  /** Present when `count` was asked for. */
  readonly count?: number;
}

/** Applies validated filters to (already redacted) text, line by line. */
export function applyFilters(text: string, input: FilterInput): FilteredText {
  const noFilter = input.match === undefined && input.exclude === undefined;
  if (noFilter && input.head === undefined && input.tail === undefined && input.count === undefined) {
    return { text, lines: lineCount(text) };
  }
  let lines = splitLines(text);
  if (input.match !== undefined) {
    const match = RE2JS.compile(input.match);
    lines = lines.filter((line) => match.test(line));
  }
  if (input.exclude !== undefined) {
    const exclude = RE2JS.compile(input.exclude);
    lines = lines.filter((line) => !exclude.test(line));
  }
  const total = lines.length;
  if (input.count === true) return { text: "", lines: total, count: total };
  if (input.head !== undefined) lines = lines.slice(0, input.head);
  if (input.tail !== undefined) lines = lines.slice(Math.max(0, lines.length - input.tail));
  return { text: lines.length > 0 ? `${lines.join("\n")}\n` : "", lines: total };
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function lineCount(text: string): number {
  return splitLines(text).length;
}
