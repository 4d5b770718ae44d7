import type { JsonObject } from "@pablo/kernel";
import { patternProblem } from "./regex-safety.js";

/** The bounds of the schema subset (README "Schema subset"). */
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

export type Mode = "input" | "output";

/** Thrown inside the translation; the public functions turn it into a result. */
export class OutsideSubset extends Error {
  constructor(
    readonly pointer: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export const ANNOTATIONS = new Set(["title", "description", "default"]);
export const DROPPED = new Set([
  "$schema",
  "$id",
  "$comment",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);
export const PRIMITIVE_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);
/** String and number keywords, and `enum` / `const`, checked and copied. */
export function translatePrimitive(node: JsonObject, pointer: string, mode: Mode): JsonObject {
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

/** `title`, `description` and `default`, bounded. */
export function collectAnnotations(node: JsonObject, pointer: string): JsonObject {
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

export function asObject(value: unknown, pointer: string): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new OutsideSubset(pointer, "expected a schema object (boolean schemas are outside the subset)");
  }
  return value as JsonObject;
}

export function count(value: unknown, pointer: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new OutsideSubset(pointer, "must be a non-negative integer");
  }
  return value;
}

function isPrimitive(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

export function escapePointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}
