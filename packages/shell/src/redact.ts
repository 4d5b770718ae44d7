import { RE2JS } from "re2js";

/** What a secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** Redaction sets a catalog or a deployment can name. */
export type BuiltinRedaction = "secrets";

/** Turns raw text into text with secrets replaced. Pure; linear in the input (RE2 semantics). */
export type Redactor = (text: string) => string;

export interface RedactorOptions {
  /** Builtin sets to apply: `secrets`. */
  readonly builtin?: readonly BuiltinRedaction[];
  /** Extra RE2 patterns (at most 200 characters each); every match becomes [REDACTED]. */
  readonly patterns?: readonly string[];
}

/** The longest pattern a catalog may declare, for redaction and filters alike. */
export const MAX_PATTERN_LENGTH = 200;

interface Rule {
  readonly pattern: RE2JS;
  /** `$1` keeps a prefix (a key name, a URL's user) and replaces only the secret after it. */
  readonly replacement: string;
}

/**
 * The `secrets` set: shapes specific enough not to eat ordinary output. Cloud keys (AWS key IDs
 * and secret keys, Google API keys, Azure account keys and SAS signatures), provider API keys
 * (OpenAI, Anthropic, GitHub, GitLab, Slack, Stripe, npm), bearer and basic credentials, private
 * key blocks (to the end of the text when the end marker was cut off), JWTs, and passwords in
 * connection strings (`scheme://user:password@`, `Password=...;`) and `password=`-style pairs.
 */
const SECRET_RULES: readonly (readonly [string, string])[] = [
  [
    "(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\\z)",
    REDACTED,
  ],
  ["\\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16}\\b", REDACTED],
  ["(?i)(aws_?secret_?access_?key[\"']?\\s*[=:]\\s*[\"']?)[A-Za-z0-9/+=]{40}", `$1${REDACTED}`],
  ["\\bAIza[0-9A-Za-z_-]{35}\\b", REDACTED],
  ["(?i)(AccountKey=)[A-Za-z0-9+/=]{20,}", `$1${REDACTED}`],
  ["(?i)([?&]sig=)[A-Za-z0-9%+/=]{20,}", `$1${REDACTED}`],
  ["\\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}", REDACTED],
  ["\\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}", REDACTED],
  ["\\bgh[pousr]_[A-Za-z0-9]{30,}", REDACTED],
  ["\\bgithub_pat_[A-Za-z0-9_]{40,}", REDACTED],
  ["\\bglpat-[A-Za-z0-9_-]{20,}", REDACTED],
  ["\\bxox[abposr]-[A-Za-z0-9-]{10,}", REDACTED],
  ["\\bnpm_[A-Za-z0-9]{36}\\b", REDACTED],
  ["\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}", REDACTED],
  ["(?i)\\b((?:bearer|basic)\\s+)[A-Za-z0-9._~+/=-]{12,}", `$1${REDACTED}`],
  ["\\b([a-zA-Z][a-zA-Z0-9+.-]*://[^\\s:/@]+:)[^\\s@/]+@", `$1${REDACTED}@`],
  ["(?i)\\b((?:password|pwd)\\s*=\\s*)[^;\\s'\"]+", `$1${REDACTED}`],
  [
    "(?i)\\b([A-Za-z0-9_]*(?:password|passwd|secret|token|api[-_]?key)[\"']?\\s*[=:]\\s*[\"']?)[^\\s&'\",;]{4,}",
    `$1${REDACTED}`,
  ],
];

let secretRules: readonly Rule[] | undefined;

/**
 * A redactor for the given sets and patterns. Throws `TypeError` on a pattern that is not RE2 or
 * is longer than {@link MAX_PATTERN_LENGTH}: catalogs are checked at load, so this is a host fault.
 */
export function createRedactor(options: RedactorOptions): Redactor {
  const rules: Rule[] = [];
  if (options.builtin?.includes("secrets")) {
    secretRules ??= SECRET_RULES.map(([source, replacement]) => ({
      pattern: RE2JS.compile(source),
      replacement,
    }));
    rules.push(...secretRules);
  }
  for (const source of options.patterns ?? []) {
    const problem = patternProblem(source);
    if (problem) throw new TypeError(problem);
    rules.push({ pattern: RE2JS.compile(source), replacement: RE2JS.quoteReplacement(REDACTED) });
  }
  if (rules.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const rule of rules) out = rule.pattern.matcher(out).replaceAll(rule.replacement);
    return out;
  };
}

/** Why a declared RE2 pattern is unusable, or undefined. */
export function patternProblem(source: string): string | undefined {
  if (source.length > MAX_PATTERN_LENGTH) return `pattern longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    RE2JS.compile(source);
    return undefined;
  } catch (error) {
    return `pattern is not RE2: ${error instanceof Error ? error.message : String(error)}`;
  }
}
