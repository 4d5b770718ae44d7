import type { TSchema } from "typebox";
import { Check, Errors } from "typebox/value";
import { compileValidator, schemaIssues, type Validator } from "./schema.js";

/**
 * A validator that interprets its first check and compiles on the second, kept for the life of
 * the catalog entry. Compiling every tool's schema when the catalog is built cost more than
 * anything else a command did at start-up, and most commands check one tool's arguments once or
 * never: `pablo call` checks one value, so generating and evaluating code for it is pure cost,
 * while a session that checks a tool again gets the compiled check from then on. typebox's
 * interpreter and its compiler implement one specification, and a compiled validator's `Errors`
 * is the interpreter's, so the answers are the same either way.
 *
 * Registration still refuses what the compiler would refuse ({@link findUncompilablePattern}, and
 * a cyclic schema fails when it is serialized), so a compile failure here is not expected; if one
 * happens the validator fails closed: `check` is false and `issues` says the schema does not
 * compile. The first check compiles at once when the schema has an expression the compiler would
 * refuse, or when the interpreter throws, so it fails closed exactly as a compiled check would.
 */
export function lazyValidator(schema: TSchema): Validator {
  let compiled: Validator | undefined;
  let checks = 0;
  const validator = (): Validator => {
    if (compiled) return compiled;
    try {
      compiled = compileValidator(schema);
    } catch (error) {
      const message = `the schema does not compile: ${error instanceof Error ? error.message : String(error)}`;
      compiled = { check: () => false, issues: () => [{ path: "/", message }] };
    }
    return compiled;
  };
  const interpreted = (value: unknown): boolean | undefined => {
    if (findUncompilablePattern(schema)) return undefined;
    try {
      return Check(schema, value);
    } catch {
      return undefined;
    }
  };
  return {
    check: (value) => {
      if (compiled || checks++ > 0) return validator().check(value);
      return interpreted(value) ?? validator().check(value);
    },
    // The compiled validator's Errors is the interpreter's: compile only to fail closed.
    issues: (value, max = 10) => {
      if (compiled) return compiled.issues(value, max);
      if (findUncompilablePattern(schema)) return validator().issues(value, max);
      try {
        return schemaIssues(Errors(schema, value), max);
      } catch {
        return validator().issues(value, max);
      }
    },
  };
}

/** One regular expression of a schema that does not compile, and where it is. */
export interface PatternFault {
  readonly pointer: string;
  readonly message: string;
}

// Keywords whose value is one schema, a list of schemas, or a table of schemas (JSON Schema 2020-12
// and draft 7, as typebox's compiler reads them). Anything else (`const`, `enum`, `default`,
// `examples`, annotations) is data, never walked, so a property named `pattern` is not a pattern.
const SINGLE = new Set([
  "additionalItems",
  "additionalProperties",
  "contains",
  "else",
  "if",
  "items",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
]);
const LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
const TABLES = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
]);

/**
 * The first regular expression in a (plain JSON) schema that typebox's compiler would fail on: a
 * `pattern`, a `patternProperties` key, and the one expression the compiler joins from an object's
 * property names and pattern keys to test for additional properties. All are compiled with the
 * `u` flag, as typebox compiles them. Undefined when every one compiles.
 */
export function findUncompilablePattern(schema: unknown, pointer = "#"): PatternFault | undefined {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return undefined;
  const node = schema as Record<string, unknown>;
  const own = ownPatternFault(node, pointer);
  if (own) return own;
  for (const [key, child] of Object.entries(node)) {
    const at = `${pointer}/${escapePointer(key)}`;
    if (Array.isArray(child) && LISTS.has(key)) {
      for (let i = 0; i < child.length; i++) {
        const found = findUncompilablePattern(child[i], `${at}/${i}`);
        if (found) return found;
      }
    } else if (SINGLE.has(key)) {
      const found = findUncompilablePattern(child, at);
      if (found) return found;
    } else if (TABLES.has(key) && child !== null && typeof child === "object") {
      for (const [name, value] of Object.entries(child)) {
        const found = findUncompilablePattern(value, `${at}/${escapePointer(name)}`);
        if (found) return found;
      }
    }
  }
  return undefined;
}

function ownPatternFault(node: Record<string, unknown>, pointer: string): PatternFault | undefined {
  const pattern = node["pattern"];
  if (typeof pattern === "string") {
    const fault = regexFault(pattern);
    if (fault) return { pointer: `${pointer}/pattern`, message: fault };
  }
  const patterns = node["patternProperties"];
  const patternKeys = patterns !== null && typeof patterns === "object" ? Object.keys(patterns) : [];
  for (const key of patternKeys) {
    const fault = regexFault(key);
    if (fault) return { pointer: `${pointer}/patternProperties/${escapePointer(key)}`, message: fault };
  }
  // typebox tests additional keys against (p1|p2|^name$...): valid parts can still make an invalid
  // whole (two groups of one name), so the joined expression is compiled as well.
  const additional = node["additionalProperties"];
  const ignored = additional === true || isEmptyObject(additional);
  if (additional === undefined || ignored || patternKeys.length === 0) return undefined;
  const properties = node["properties"];
  const names = properties !== null && typeof properties === "object" ? Object.keys(properties) : [];
  const joined = `(${[...patternKeys, ...names.map(propertyKeyPattern)].join("|")})`;
  const fault = regexFault(joined);
  return fault ? { pointer: `${pointer}/patternProperties`, message: fault } : undefined;
}

function regexFault(pattern: string): string | undefined {
  try {
    new RegExp(pattern, "u");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function propertyKeyPattern(key: string): string {
  return `^${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === "object" && Object.keys(value).length === 0;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
