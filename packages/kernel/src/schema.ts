import type { TSchema } from "typebox";
import type { TLocalizedValidationError } from "typebox/error";
import { Compile } from "typebox/schema";

/** One problem with a value, addressed by JSON pointer. */
export interface SchemaIssue {
  readonly path: string;
  readonly message: string;
}

/** A compiled validator for one schema. */
export interface Validator {
  check(value: unknown): boolean;
  issues(value: unknown, max?: number): SchemaIssue[];
}

/**
 * Compiles a schema with typebox's schema compiler: the checker and its errors only, not
 * `typebox/compile`'s validator, whose parse, decode and default operations load the rest of
 * typebox (its value and type engines) into every process that validates a tool's input.
 */
export function compileValidator(schema: TSchema): Validator {
  const compiled = Compile(schema);
  return {
    check: (value) => compiled.Check(value),
    issues: (value, max = 10) => {
      const [valid, errors] = compiled.Errors(value);
      return valid ? [] : schemaIssues(errors, max);
    },
  };
}

/** typebox's errors for a value as issues, at most `max` of them. */
export function schemaIssues(errors: Iterable<TLocalizedValidationError>, max = 10): SchemaIssue[] {
  const out: SchemaIssue[] = [];
  for (const error of errors) {
    // typebox reports `additionalProperties: false` twice; keep the readable one.
    if (error.keyword === "boolean") continue;
    const extra = (error.params as { additionalProperties?: unknown }).additionalProperties;
    const suffix = Array.isArray(extra) ? ` (${extra.join(", ")})` : "";
    out.push({ path: error.instancePath || "/", message: `${error.message}${suffix}` });
    if (out.length >= max) break;
  }
  return out;
}

/**
 * Finds the first object schema that is open: an `object` type (or a schema with `properties`)
 * without `additionalProperties: false`. Returns its JSON pointer, or undefined when closed.
 * Open schemas let a model smuggle fields past validation, so registration refuses them.
 */
export function findOpenObject(schema: unknown, pointer = "#"): string | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  const node = schema as Record<string, unknown>;
  const isObject =
    node["type"] === "object" || (node["properties"] !== undefined && typeof node["properties"] === "object");
  if (isObject && node["additionalProperties"] !== false) return pointer;
  for (const [key, child] of Object.entries(node)) {
    if (key === "default" || key === "examples" || key === "const" || key === "enum") continue;
    if (Array.isArray(child)) {
      for (let i = 0; i < child.length; i++) {
        const found = findOpenObject(child[i], `${pointer}/${key}/${i}`);
        if (found) return found;
      }
    } else if (child !== null && typeof child === "object") {
      const found = findOpenObject(child, `${pointer}/${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

/** The schema as plain JSON Schema (typebox values carry symbols JSON does not keep). */
export function toJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
