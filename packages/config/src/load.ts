import { readFileSync } from "node:fs";
import { parse, TomlError } from "smol-toml";
import type { Static, TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { type Bindings, isBindingPath, resolveBindingPath } from "./bindings.js";
import { type ConfigError, ConfigErrorCode, type ConfigResult } from "./errors.js";
import { locateKey } from "./locate.js";
import { type CredentialConfig, deploymentSchema } from "./sections.js";

/** A validated deployment: credentials and options with every binding path resolved. */
export interface Deployment {
  readonly file: string;
  readonly credentials: Readonly<Record<string, CredentialConfig>>;
  readonly options: Readonly<Record<string, unknown>>;
}

export interface LoadOptions {
  /** Section schemas contributed by the distribution's packages, by `[options.NAME]`. */
  readonly sections: Readonly<Record<string, TSchema>>;
  readonly bindings: Bindings;
}

/** Reads and validates a deployment file. Every problem comes back with file, line and key path. */
export function loadDeploymentFile(file: string, options: LoadOptions): ConfigResult<Deployment> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    return failure([
      {
        code: ConfigErrorCode.READ_FAILED,
        file,
        line: 0,
        keyPath: "",
        message: `cannot read the file (${reason})`,
      },
    ]);
  }
  return parseDeployment(text, file, options);
}

/** Parses and validates deployment text; `file` names it in errors. */
export function parseDeployment(text: string, file: string, options: LoadOptions): ConfigResult<Deployment> {
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (error) {
    const line = error instanceof TomlError ? error.line : 0;
    const message =
      error instanceof Error ? (error.message.split("\n")[0] ?? "invalid TOML") : "invalid TOML";
    return failure([{ code: ConfigErrorCode.SYNTAX, file, line, keyPath: "", message }]);
  }
  const errors: ConfigError[] = [];
  const resolved = resolveBindings(raw, [], options.bindings, (keyPath, code, message) =>
    errors.push({ code, file, line: locateKey(text, keyPath), keyPath: keyPath.join("."), message }),
  ) as Record<string, unknown>;
  if (errors.length > 0) return failure(errors);

  const schema = deploymentSchema(options.sections);
  const validator = Compile(schema);
  if (!validator.Check(resolved)) {
    for (const issue of validator.Errors(resolved)) {
      if (issue.keyword === "boolean") continue;
      const base = pointerToPath(issue.instancePath);
      const unknown = (issue.params as { additionalProperties?: unknown }).additionalProperties;
      if (issue.keyword === "additionalProperties" && Array.isArray(unknown)) {
        for (const key of unknown as string[]) {
          const keyPath = [...base, key];
          errors.push({
            code: ConfigErrorCode.UNKNOWN_KEY,
            file,
            line: locateKey(text, keyPath),
            keyPath: keyPath.join("."),
            message: `unknown key ${JSON.stringify(key)}${suggestion(schema, base, key)}`,
          });
        }
        continue;
      }
      errors.push({
        code: ConfigErrorCode.INVALID_VALUE,
        file,
        line: locateKey(text, base),
        keyPath: base.join("."),
        message: allowedHere(schema, base, valueAt(resolved, base)) ?? issue.message,
      });
    }
    return failure(dedupe(errors));
  }
  const value = resolved as Static<ReturnType<typeof deploymentSchema>> & {
    credentials?: Record<string, CredentialConfig>;
    options?: Record<string, unknown>;
  };
  return { ok: true, value: { file, credentials: value.credentials ?? {}, options: value.options ?? {} } };
}

/** The typed value of one `[options.NAME]` section (already validated against `schema`). */
export function section<S extends TSchema>(
  deployment: Deployment,
  name: string,
  _schema: S,
): Static<S> | undefined {
  return deployment.options[name] as Static<S> | undefined;
}

function resolveBindings(
  value: unknown,
  keyPath: string[],
  bindings: Bindings,
  report: (keyPath: string[], code: ConfigError["code"], message: string) => void,
): unknown {
  if (isBindingPath(value)) {
    const ref = value as Record<string, unknown>;
    const keys = Object.keys(ref).sort().join(",");
    if (keys !== "base,name,path" || typeof ref["name"] !== "string" || typeof ref["path"] !== "string") {
      report(
        keyPath,
        ConfigErrorCode.INVALID_BINDING,
        'a binding path is { base = "binding", name = "NAME", path = "REL" }',
      );
      return value;
    }
    const result = resolveBindingPath({ base: "binding", name: ref["name"], path: ref["path"] }, bindings);
    if (result.ok) return result.path;
    report(
      keyPath,
      result.missing ? ConfigErrorCode.MISSING_BINDING : ConfigErrorCode.INVALID_BINDING,
      result.message,
    );
    return value;
  }
  if (Array.isArray(value))
    return value.map((item, i) => resolveBindings(item, [...keyPath, String(i)], bindings, report));
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value))
      out[key] = resolveBindings(child, [...keyPath, key], bindings, report);
    return out;
  }
  return value;
}

function pointerToPath(pointer: string): string[] {
  if (pointer === "" || pointer === "/") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** "did you mean" from the keys the schema allows at that place. */
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
  return allowed.length > 0 && allowed.length <= 12 ? `; allowed here: ${allowed.join(", ")}` : "";
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

function literalChoices(node: TSchema): unknown[] | undefined {
  const n = node as { anyOf?: Array<{ const?: unknown }>; enum?: unknown[]; const?: unknown };
  if (Array.isArray(n.enum)) return n.enum;
  if (n.anyOf?.every((v) => "const" in v)) return n.anyOf.map((v) => v.const);
  return undefined;
}

function describeSchema(node: TSchema): string {
  const n = node as {
    type?: string;
    const?: unknown;
    properties?: Record<string, unknown>;
    description?: string;
  };
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

function dedupe(errors: ConfigError[]): ConfigError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.keyPath}|${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function failure<T>(errors: readonly ConfigError[]): ConfigResult<T> {
  return { ok: false, errors };
}
