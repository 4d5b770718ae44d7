import type { Static, TSchema } from "typebox";
import { Check, Errors } from "typebox/value";

/**
 * One problem with a configuration value. `path` is the JSON pointer of the offending key or value
 * inside the section (`/quotas/files`, `/` for the section itself); `message` says what is allowed
 * there (`must be "prefix" or "exact" (got "prefixx")`, `unknown key "revison"; did you mean
 * "revisions"?`) rather than only what failed.
 */
export interface SectionError {
  readonly path: string;
  /** The same place as keys (`["quotas", "files"]`), for hosts that show a dotted key path. */
  readonly keys: readonly string[];
  readonly message: string;
  /** `unknown-key`: the section names a key its schema does not have; `invalid`: any other problem. */
  readonly kind: "unknown-key" | "invalid";
}

/** A resolved section: its typed value, or every located problem. Never an exception. */
export type SectionResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly errors: readonly SectionError[] };

/**
 * The one options-resolution contract of every package: validates a configuration section (a
 * deployment's `[options.NAME]`, a plugin's options, a policy file) against its closed typebox
 * schema and returns a result with located errors. An absent section (`undefined`, never `null`)
 * is validated as an empty table, so a schema whose fields are all optional resolves it to `{}`.
 * Contract: never throws for any value; a package fills its defaults from `value` after `ok`.
 */
export function resolveSection<S extends TSchema>(
  schema: S,
  value: unknown,
  options: { readonly max?: number } = {},
): SectionResult<Static<S>> {
  const raw = value === undefined ? {} : value;
  const max = options.max ?? Number.POSITIVE_INFINITY;
  // Interpreted, not compiled: a section is checked once per process, and compiling a validator
  // costs more than many interpreted checks. The interpreter visits only the keys the value has, so
  // a deployment pays for the sections it sets, not for every section a distribution knows.
  if (Check(schema, raw)) return { ok: true, value: raw as Static<S> };
  const errors: SectionError[] = [];
  const seen = new Set<string>();
  const push = (error: SectionError) => {
    const key = `${error.path}|${error.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    errors.push(error);
  };
  for (const issue of Errors(schema, raw)) {
    // typebox reports `additionalProperties: false` twice; the `boolean` copy says less.
    if (issue.keyword === "boolean") continue;
    const base = pointerToPath(issue.instancePath);
    const unknown = (issue.params as { additionalProperties?: unknown }).additionalProperties;
    if (issue.keyword === "additionalProperties" && Array.isArray(unknown)) {
      for (const key of unknown as string[]) {
        push({
          kind: "unknown-key",
          path: pathToPointer([...base, key]),
          keys: [...base, key],
          message: `unknown key ${JSON.stringify(key)}${suggestion(schema, base, key)}`,
        });
      }
    } else {
      const value = valueAt(raw, base);
      const variant = /\/anyOf\/(\d+)$/.exec(issue.schemaPath)?.[1];
      const fit = fittingVariant(schemaAt(schema, base), value);
      // A value of one variant's type (a string where a path string or a table may stand) is told
      // that variant's own problem (`must match pattern "^/"`), not the list of every variant.
      if (
        fit !== undefined &&
        (issue.keyword === "anyOf" || (variant !== undefined && Number(variant) !== fit))
      )
        continue;
      push({
        kind: "invalid",
        path: pathToPointer(base),
        keys: base,
        message: (fit === undefined ? allowedHere(schema, base, value) : undefined) ?? issue.message,
      });
    }
    if (errors.length >= max) break;
  }
  return { ok: false, errors: errors.slice(0, max) };
}

/** The keys of a JSON pointer, unescaped: `/a~1b/0` is `["a/b", "0"]`. */
function pointerToPath(pointer: string): string[] {
  if (pointer === "" || pointer === "/") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function pathToPointer(path: readonly string[]): string {
  return path.length === 0 ? "/" : path.map((p) => `/${p.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** "did you mean" from the keys the schema allows at that place, or the allowed keys when few. */
function suggestion(schema: TSchema, path: readonly string[], key: string): string {
  let node: unknown = schema;
  for (const part of path) {
    const properties = (node as { properties?: Record<string, unknown> }).properties;
    const patterns = (node as { patternProperties?: Record<string, unknown> }).patternProperties;
    node = properties?.[part] ?? (patterns ? Object.values(patterns)[0] : undefined);
    if (!node) return "";
  }
  const allowed = Object.keys((node as { properties?: Record<string, unknown> }).properties ?? {});
  const close = allowed.filter((k) => editDistance(k, key) <= 2);
  if (close.length > 0) return `; did you mean ${close.map((k) => JSON.stringify(k)).join(" or ")}?`;
  if (allowed.length > 0 && allowed.length <= 12) return `; allowed here: ${allowed.join(", ")}`;
  // A table of names (a record): what is allowed is the shape of a key, not a list of keys.
  const patterns = Object.keys(
    (node as { patternProperties?: Record<string, unknown> }).patternProperties ?? {},
  );
  return patterns.length > 0 ? `; a key here must match ${patterns.join(" or ")}` : "";
}

/**
 * What a value at `path` may be, said plainly: `must be "prefix" or "exact" (got "prefixx")`
 * rather than the validator's "must match a schema in anyOf". Undefined where the schema has
 * nothing clearer to say than the validator's own message.
 */
function allowedHere(schema: TSchema, path: readonly string[], value: unknown): string | undefined {
  const node = schemaAt(schema, path);
  if (!node) return undefined;
  const got = ` (got ${shown(value)})`;
  const choices = literalChoices(node);
  if (choices)
    return `must be ${choices
      .map((c) => JSON.stringify(c))
      .join(", ")
      .replace(/, ([^,]*)$/, " or $1")}${got}`;
  const variants = (node as { anyOf?: TSchema[] }).anyOf;
  if (variants) return `must be ${variants.map(describeSchema).join(" or ")}${got}`;
  return undefined;
}

/** The one non-literal variant of a union whose JSON type the value has, if exactly one has it. */
function fittingVariant(node: TSchema | undefined, value: unknown): number | undefined {
  const variants = (node as { anyOf?: Array<{ type?: unknown; const?: unknown }> } | undefined)?.anyOf;
  if (!variants) return undefined;
  const kind = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  const fits = variants.flatMap((v, i) => {
    if ("const" in v) return [];
    const type = v.type === "integer" ? "number" : v.type;
    return type === kind ? [i] : [];
  });
  return fits.length === 1 ? fits[0] : undefined;
}

function literalChoices(node: TSchema): unknown[] | undefined {
  const n = node as { anyOf?: Array<{ const?: unknown }>; enum?: unknown[]; const?: unknown };
  if (Array.isArray(n.enum)) return n.enum;
  if (n.anyOf?.every((v) => "const" in v)) return n.anyOf.map((v) => v.const);
  return undefined;
}

function describeSchema(node: TSchema): string {
  const n = node as { type?: string; const?: unknown; properties?: Record<string, unknown> };
  if ("const" in n) return JSON.stringify(n.const);
  if (n.type === "object" && n.properties) return `a table with ${Object.keys(n.properties).join(", ")}`;
  if (n.type === "array") return "a list";
  if (n.type === "integer") return "a whole number";
  return n.type ? `a ${n.type}` : "a value of another shape";
}

/** The schema that governs `path`, walking properties, patterns, list items and unions. */
function schemaAt(schema: TSchema, path: readonly string[]): TSchema | undefined {
  let node: unknown = schema;
  for (const part of path) {
    node = childSchema(node, part);
    if (!node) return undefined;
  }
  return node as TSchema;
}

function childSchema(node: unknown, part: string): unknown {
  const n = node as {
    properties?: Record<string, unknown>;
    patternProperties?: Record<string, unknown>;
    additionalProperties?: unknown;
    items?: unknown;
    anyOf?: unknown[];
  };
  if (n.anyOf) {
    for (const variant of n.anyOf) {
      const child = childSchema(variant, part);
      if (child) return child;
    }
    return undefined;
  }
  if (n.items && /^\d+$/.test(part)) return n.items;
  return (
    n.properties?.[part] ??
    (n.patternProperties ? Object.values(n.patternProperties)[0] : undefined) ??
    (typeof n.additionalProperties === "object" ? n.additionalProperties : undefined)
  );
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const part of path) value = (value as Record<string, unknown> | undefined)?.[part];
  return value;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min((row[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}
