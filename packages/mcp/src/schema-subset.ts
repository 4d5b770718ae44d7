import type { JsonObject, JsonValue } from "@pablo/kernel";
import {
  ANNOTATIONS,
  asObject,
  collectAnnotations,
  count,
  DROPPED,
  escapePointer,
  type Mode,
  OutsideSubset,
  PRIMITIVE_TYPES,
  SCHEMA_SUBSET_LIMITS,
  translatePrimitive,
} from "./schema-keywords.js";

export { SCHEMA_SUBSET_LIMITS };

/**
 * The bounded subset of JSON Schema Pablo validates MCP tool arguments and structured output
 * against. Anything outside it leaves the tool out of the catalog with a diagnostic; nothing is
 * ever called unvalidated. See README "Schema subset" and {@link SCHEMA_SUBSET_LIMITS}.
 */

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

interface Context {
  readonly mode: Mode;
  readonly defs: Readonly<Record<string, unknown>>;
  readonly expanding: Set<string>;
  nodes: number;
}

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

function asDefs(value: unknown, key: string): Record<string, unknown> {
  if (value === undefined) return {};
  return asObject(value, `#/${key}`);
}
