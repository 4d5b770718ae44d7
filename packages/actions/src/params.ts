import { RE2JS } from "re2js";
import Type, { type TObject, type TSchema } from "typebox";
import type { ParamValue } from "./arg-template.js";
import type { ParamSpec } from "./catalog-schema.js";

/** Longest string parameter when the catalog names no `max_length`. */
export const DEFAULT_MAX_PARAM_LENGTH = 256;

/** The closed typebox schema of an action's `params` object. */
export function paramsSchema(specs: Readonly<Record<string, ParamSpec>>): TObject {
  const properties: Record<string, TSchema> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const schema = paramSchema(spec);
    properties[name] = spec.optional ? Type.Optional(schema) : schema;
  }
  return Type.Object(properties, {
    additionalProperties: false,
    description: "The action's parameters; each becomes exactly one argument.",
  });
}

function paramSchema(spec: ParamSpec): TSchema {
  const description = spec.description;
  if (spec.type === "boolean") return Type.Boolean({ description });
  if (spec.type === "integer") {
    return Type.Integer({
      description,
      ...(spec.minimum !== undefined ? { minimum: spec.minimum } : {}),
      ...(spec.maximum !== undefined ? { maximum: spec.maximum } : {}),
    });
  }
  if (spec.enum)
    return Type.Union(
      spec.enum.map((v) => Type.Literal(v)),
      { description },
    );
  return Type.String({ description, maxLength: spec.max_length ?? DEFAULT_MAX_PARAM_LENGTH });
}

/** Why a catalog's parameter declaration is unusable, or undefined. */
export function paramSpecProblem(name: string, spec: ParamSpec): string | undefined {
  if (spec.type !== "string" && (spec.enum || spec.pattern || spec.max_length || spec.allow_leading_dash)) {
    return `parameter ${name}: enum, pattern, max_length and allow_leading_dash apply to strings only`;
  }
  if (spec.type !== "integer" && (spec.minimum !== undefined || spec.maximum !== undefined)) {
    return `parameter ${name}: minimum and maximum apply to integers only`;
  }
  if (spec.pattern !== undefined) {
    try {
      RE2JS.compile(spec.pattern);
    } catch (error) {
      return `parameter ${name}: pattern is not RE2: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return undefined;
}

/**
 * Checks what the schema cannot say about values that already passed it: no NUL, line break or
 * other control character (an argument is one line of text), no leading `-` unless the catalog
 * allows it (a value must never become an option), and the RE2 `pattern` over the whole value.
 * Returns the first problem, naming the parameter.
 */
export function paramValueProblem(
  specs: Readonly<Record<string, ParamSpec>>,
  values: Readonly<Record<string, ParamValue | undefined>>,
): string | undefined {
  for (const [name, value] of Object.entries(values)) {
    const spec = specs[name];
    if (!spec) return `unknown parameter ${name}`;
    if (typeof value !== "string") continue;
    if (hasControlCharacter(value))
      return `parameter ${name}: control characters (NUL, newline, ...) are refused`;
    if (value.startsWith("-") && !spec.allow_leading_dash) {
      return `parameter ${name}: a value may not start with "-" (it could be read as an option)`;
    }
    if (spec.pattern !== undefined && !RE2JS.compile(spec.pattern).testExact(value)) {
      return `parameter ${name}: value does not match the pattern ${spec.pattern}`;
    }
  }
  return undefined;
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x20 || unit === 0x7f) return true;
  }
  return false;
}
