import type { JsonObject, JsonValue } from "@pablo/kernel";
import { patternProblem } from "./regex-safety.js";

/**
 * The bounded subset of JSON Schema Pablo validates MCP tool arguments and structured output
 * against. Anything outside it leaves the tool out of the catalog with a diagnostic; nothing is
 * ever called unvalidated. See README "Schema subset".
 */
export const SCHEMA_SUBSET_LIMITS = {
  maxSchemaBytes: 128 * 1024,
  maxDepth: 12,
  maxNodes: 1000,
  maxProperties: 256,
  maxEnum: 256,
  maxAnyOf: 16,
  maxTextChars: 8192,
  maxDefaultChars: 4096,
  /** A string with a `pattern` gets `maxLength` at most this (a tightening), bounding backtracking. */
  patternMaxLength: 1024,
} as const;

export type SubsetResult =
  | { readonly ok: true; readonly schema: JsonObject }
  | { readonly ok: false; readonly pointer: string; readonly reason: string };

/** Input schemas: the root is an object and every object is closed (`additionalProperties: false`). */
export function closeInputSchema(schema: unknown): SubsetResult {
  return translateRoot(schema, "input");
}

/** Output schemas: the same subset, but objects stay as open as the server declared them. */
export function boundOutputSchema(schema: unknown): SubsetResult {
  return translateRoot(schema, "output");
}

type Mode = "input" | "output";

interface Context {
  readonly mode: Mode;
  readonly defs: Readonly<Record<string, unknown>>;
  readonly expanding: Set<string>;
  nodes: number;
}

class OutsideSubset extends Error {
  constructor(
    readonly pointer: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const ANNOTATIONS = new Set(["title", "description", "default"]);
const DROPPED = new Set(["$schema", "$id", "$comment", "examples", "deprecated", "readOnly", "writeOnly"]);
const PRIMITIVE_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);
const KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  string: ["minLength", "maxLength", "pattern", "format", "enum", "const"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "enum", "const"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "enum", "const"],
  boolean: ["enum", "const"],
  null: ["enum", "const"],
  array: ["items", "minItems", "maxItems", "uniqueItems"],
  object: ["properties", "required", "additionalProperties"],
};

function translateRoot(schema: unknown, mode: Mode): SubsetResult {
  try {
    const text = JSON.stringify(schema) ?? "";
    if (text.length > SCHEMA_SUBSET_LIMITS.maxSchemaBytes) {
      throw new OutsideSubset("#", `schema larger than ${SCHEMA_SUBSET_LIMITS.maxSchemaBytes} bytes`);
    }
    const root = asObject(schema, "#");
    if (root["type"] !== "object") throw new OutsideSubset("#", 'the root must have type "object"');
    const defs = { ...asDefs(root["definitions"], "definitions"), ...asDefs(root["$defs"], "$defs") };
    const ctx: Context = { mode, defs, expanding: new Set(), nodes: 0 };
    return { ok: true, schema: translate(root, "#", 0, ctx) };
  } catch (error) {
    if (error instanceof OutsideSubset) return { ok: false, pointer: error.pointer, reason: error.reason };
    throw error;
  }
}

function translate(node: JsonObject, pointer: string, depth: number, ctx: Context): JsonObject {
  if (depth > SCHEMA_SUBSET_LIMITS.maxDepth) throw new OutsideSubset(pointer, "schema nested too deeply");
  if (++ctx.nodes > SCHEMA_SUBSET_LIMITS.maxNodes)
    throw new OutsideSubset(pointer, "schema has too many nodes");
  const annotations = collectAnnotations(node, pointer);
  if (typeof node["$ref"] === "string") return { ...expandRef(node, pointer, depth, ctx), ...annotations };
  if (node["anyOf"] !== undefined) return { ...translateAnyOf(node, pointer, depth, ctx), ...annotations };
  const types = typesOf(node, pointer, ctx.mode);
  const allowed = new Set(types.flatMap((t) => KEYWORDS[t] ?? []));
  for (const key of Object.keys(node)) {
    if (key === "type" || ANNOTATIONS.has(key) || DROPPED.has(key) || key.startsWith("x-")) continue;
    if ((key === "$defs" || key === "definitions") && pointer === "#") continue;
    if (!allowed.has(key))
      throw new OutsideSubset(pointer, `keyword "${key}" is outside the supported subset`);
  }
  const out: JsonObject = node["type"] === undefined ? {} : { type: node["type"] as JsonValue };
  if (types.includes("object")) Object.assign(out, translateObject(node, pointer, depth, ctx));
  else if (types.includes("array")) Object.assign(out, translateArray(node, pointer, depth, ctx));
  else Object.assign(out, translatePrimitive(node, pointer, ctx.mode));
  return { ...out, ...annotations };
}

function typesOf(node: JsonObject, pointer: string, mode: Mode): string[] {
  const type = node["type"];
  if (type === undefined) {
    if (node["enum"] !== undefined || node["const"] !== undefined) return [...PRIMITIVE_TYPES];
    const keyword = Object.keys(node).find(
      (k) => !ANNOTATIONS.has(k) && !DROPPED.has(k) && !k.startsWith("x-"),
    );
    if (keyword !== undefined) {
      throw new OutsideSubset(pointer, `keyword "${keyword}" is outside the supported subset`);
    }
    if (mode === "output") return [];
    throw new OutsideSubset(pointer, "a value without a type is outside the supported subset");
  }
  if (typeof type === "string") {
    if (type in KEYWORDS) return [type];
    throw new OutsideSubset(pointer, `unknown type ${JSON.stringify(type)}`);
  }
  if (
    Array.isArray(type) &&
    type.length > 0 &&
    type.every((t) => typeof t === "string" && PRIMITIVE_TYPES.has(t))
  ) {
    return type as string[];
  }
  throw new OutsideSubset(pointer, "a type list may only name string, number, integer, boolean and null");
}

function translateObject(node: JsonObject, pointer: string, depth: number, ctx: Context): JsonObject {
  const rawProperties = node["properties"] ?? {};
  const properties = asObject(rawProperties, `${pointer}/properties`);
  const names = Object.keys(properties);
  if (names.length > SCHEMA_SUBSET_LIMITS.maxProperties) {
    throw new OutsideSubset(pointer, `more than ${SCHEMA_SUBSET_LIMITS.maxProperties} properties`);
  }
  const out: JsonObject = { type: "object", properties: {} };
  const translated = out["properties"] as JsonObject;
  for (const name of names) {
    const child = `${pointer}/properties/${escapePointer(name)}`;
    translated[name] = translate(asObject(properties[name], child), child, depth + 1, ctx);
  }
  const required = node["required"];
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === "string")) {
      throw new OutsideSubset(`${pointer}/required`, "required must be a list of names");
    }
    const missing = required.find((r) => !(r in properties));
    if (ctx.mode === "input" && missing !== undefined) {
      throw new OutsideSubset(
        `${pointer}/required`,
        `required property ${JSON.stringify(missing)} is not declared`,
      );
    }
    out["required"] = [...new Set(required as string[])];
  }
  const additional = node["additionalProperties"];
  if (ctx.mode === "input") {
    if (additional !== undefined && typeof additional !== "boolean") {
      throw new OutsideSubset(
        `${pointer}/additionalProperties`,
        "a schema for additional properties cannot be closed",
      );
    }
    if (names.length === 0 && additional !== false && pointer !== "#") {
      throw new OutsideSubset(pointer, "a free-form object cannot be closed without changing its meaning");
    }
    out["additionalProperties"] = false;
  } else if (typeof additional === "boolean") {
    out["additionalProperties"] = additional;
  } else if (additional !== undefined) {
    const child = `${pointer}/additionalProperties`;
    out["additionalProperties"] = translate(asObject(additional, child), child, depth + 1, ctx);
  }
  return out;
}

function translateArray(node: JsonObject, pointer: string, depth: number, ctx: Context): JsonObject {
  const out: JsonObject = {};
  const items = node["items"];
  if (items === undefined) {
    if (ctx.mode === "input") throw new OutsideSubset(pointer, "array items are not described");
  } else {
    if (Array.isArray(items))
      throw new OutsideSubset(`${pointer}/items`, "tuple items are outside the subset");
    out["items"] = translate(asObject(items, `${pointer}/items`), `${pointer}/items`, depth + 1, ctx);
  }
  for (const key of ["minItems", "maxItems"]) {
    if (node[key] !== undefined) out[key] = count(node[key], `${pointer}/${key}`);
  }
  if (node["uniqueItems"] !== undefined) {
    if (typeof node["uniqueItems"] !== "boolean")
      throw new OutsideSubset(pointer, "uniqueItems must be boolean");
    out["uniqueItems"] = node["uniqueItems"];
  }
  return out;
}

function translatePrimitive(node: JsonObject, pointer: string, mode: Mode): JsonObject {
  const out: JsonObject = {};
  for (const key of ["minLength", "maxLength"]) {
    if (node[key] !== undefined) out[key] = count(node[key], `${pointer}/${key}`);
  }
  if (node["pattern"] !== undefined) {
    const pattern = node["pattern"];
    if (mode === "output") {
      // Server output can be megabytes long; no length cap can be added without changing meaning.
      throw new OutsideSubset(`${pointer}/pattern`, "pattern is not supported in output schemas");
    }
    const problem = typeof pattern === "string" ? patternProblem(pattern) : "pattern must be a string";
    if (problem) throw new OutsideSubset(`${pointer}/pattern`, problem);
    const cap = SCHEMA_SUBSET_LIMITS.patternMaxLength;
    out["maxLength"] = Math.min((out["maxLength"] as number | undefined) ?? cap, cap);
    out["pattern"] = pattern as string;
  }
  if (node["format"] !== undefined) {
    if (typeof node["format"] !== "string" || node["format"].length > 64) {
      throw new OutsideSubset(`${pointer}/format`, "format must be a short string");
    }
    out["format"] = node["format"];
  }
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
    const value = node[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || (key === "multipleOf" && value <= 0)) {
      throw new OutsideSubset(`${pointer}/${key}`, `${key} must be a finite number`);
    }
    out[key] = value;
  }
  if (node["enum"] !== undefined) {
    const values = node["enum"];
    if (!Array.isArray(values) || values.length === 0 || values.length > SCHEMA_SUBSET_LIMITS.maxEnum) {
      throw new OutsideSubset(
        `${pointer}/enum`,
        `enum must list 1 to ${SCHEMA_SUBSET_LIMITS.maxEnum} values`,
      );
    }
    if (!values.every(isPrimitive))
      throw new OutsideSubset(`${pointer}/enum`, "enum values must be primitives");
    out["enum"] = values;
  }
  if (node["const"] !== undefined) {
    if (!isPrimitive(node["const"])) throw new OutsideSubset(`${pointer}/const`, "const must be a primitive");
    out["const"] = node["const"];
  }
  return out;
}

function translateAnyOf(node: JsonObject, pointer: string, depth: number, ctx: Context): JsonObject {
  for (const key of Object.keys(node)) {
    if (key !== "anyOf" && !ANNOTATIONS.has(key) && !DROPPED.has(key) && !key.startsWith("x-")) {
      throw new OutsideSubset(pointer, `keyword "${key}" beside anyOf is outside the supported subset`);
    }
  }
  const branches = node["anyOf"];
  if (!Array.isArray(branches) || branches.length === 0 || branches.length > SCHEMA_SUBSET_LIMITS.maxAnyOf) {
    throw new OutsideSubset(
      `${pointer}/anyOf`,
      `anyOf must list 1 to ${SCHEMA_SUBSET_LIMITS.maxAnyOf} schemas`,
    );
  }
  return {
    anyOf: branches.map((branch, i) => {
      const child = `${pointer}/anyOf/${i}`;
      return translate(asObject(branch, child), child, depth + 1, ctx);
    }),
  };
}

function expandRef(node: JsonObject, pointer: string, depth: number, ctx: Context): JsonObject {
  const ref = node["$ref"] as string;
  const match = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match?.[1]) throw new OutsideSubset(pointer, `only local $ref into $defs is supported, not ${ref}`);
  const name = match[1].replace(/~1/g, "/").replace(/~0/g, "~");
  const target = ctx.defs[name];
  if (target === undefined) throw new OutsideSubset(pointer, `$ref ${ref} does not resolve`);
  if (ctx.expanding.has(name))
    throw new OutsideSubset(pointer, `recursive $ref ${ref} is outside the subset`);
  for (const key of Object.keys(node)) {
    if (key !== "$ref" && !ANNOTATIONS.has(key) && !DROPPED.has(key)) {
      throw new OutsideSubset(pointer, `keyword "${key}" beside $ref is outside the supported subset`);
    }
  }
  ctx.expanding.add(name);
  try {
    return translate(asObject(target, ref), pointer, depth + 1, ctx);
  } finally {
    ctx.expanding.delete(name);
  }
}

function collectAnnotations(node: JsonObject, pointer: string): JsonObject {
  const out: JsonObject = {};
  for (const key of ["title", "description"]) {
    const value = node[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value.length > SCHEMA_SUBSET_LIMITS.maxTextChars) {
      throw new OutsideSubset(
        `${pointer}/${key}`,
        `${key} must be a string of at most ${SCHEMA_SUBSET_LIMITS.maxTextChars} characters`,
      );
    }
    out[key] = value;
  }
  if (node["default"] !== undefined) {
    if ((JSON.stringify(node["default"]) ?? "").length > SCHEMA_SUBSET_LIMITS.maxDefaultChars) {
      throw new OutsideSubset(`${pointer}/default`, "default value too large");
    }
    out["default"] = node["default"];
  }
  return out;
}

function asObject(value: unknown, pointer: string): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new OutsideSubset(pointer, "expected a schema object (boolean schemas are outside the subset)");
  }
  return value as JsonObject;
}

function asDefs(value: unknown, key: string): Record<string, unknown> {
  if (value === undefined) return {};
  return asObject(value, `#/${key}`);
}

function count(value: unknown, pointer: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new OutsideSubset(pointer, "must be a non-negative integer");
  }
  return value;
}

function isPrimitive(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function escapePointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}
