/** A value that survives `JSON.stringify` / `JSON.parse` unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

const encoder = new TextEncoder();

/** UTF-8 byte length of a string without allocating the encoded bytes for ASCII-only text. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Encodes text as UTF-8 bytes. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * JSON with object keys sorted, so equal values hash equally whatever order their keys were
 * built in. Used for argument hashes, definition hashes and the audit chain. Written directly
 * rather than through a sorted copy (it runs for every audit record); a value plain JSON data
 * does not describe (a function, a symbol, a `toJSON` or `__proto__` key) takes the
 * copy-then-stringify path, which defines the output.
 */
export function canonicalJson(value: unknown): string {
  try {
    return writeCanonical(value, 0) as string;
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return JSON.stringify(sortKeys(value));
  }
}

/**
 * The canonical JSON of `value` with `extra`'s fields added at its top level, exactly as
 * {@link canonicalJson} of a copy holding both would be, without making the copy (the audit chain
 * adds `seq` and `prev` to every record it links). A key in both takes `extra`'s value.
 */
export function canonicalJsonWith(value: object, extra: Readonly<Record<string, unknown>>): string {
  const added = Object.keys(extra);
  if (added.some((key) => Object.hasOwn(value, key))) return canonicalJson({ ...value, ...extra });
  try {
    return writeFields(
      shapeOf([...Object.keys(value), ...added]),
      value as Record<string, unknown>,
      extra,
      0,
    );
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return canonicalJson({ ...value, ...extra });
  }
}

/** Thrown inside {@link writeCanonical} to hand a value to the general path. */
const NOT_PLAIN = Symbol("not plain JSON data");
/** Deeper than this is left to the general path, which reports cycles as JSON.stringify does. */
const MAX_DEPTH = 256;

/**
 * Text JSON.stringify writes between quotes unchanged: no quote, backslash, control character or
 * surrogate (a lone one is escaped; pairs are left to JSON.stringify too, to stay exact).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes.
const VERBATIM = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function quote(text: string): string {
  return VERBATIM.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** Canonical JSON of plain data; undefined where JSON.stringify leaves a value out. */
function writeCanonical(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "number":
      // JSON.stringify writes finite numbers as String does, and every other number as null.
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
      return undefined;
    case "object":
      break;
    default:
      throw NOT_PLAIN;
  }
  if (value === null) return "null";
  if (depth > MAX_DEPTH) throw NOT_PLAIN;
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += writeCanonical(value[i], depth + 1) ?? "null";
    }
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  return writeFields(shapeOf(Object.keys(object)), object, undefined, depth);
}

/** The fields of `object` (and of `extra`, which it does not share a key with) in canonical order. */
function writeFields(
  shape: Shape,
  object: Readonly<Record<string, unknown>>,
  extra: Readonly<Record<string, unknown>> | undefined,
  depth: number,
): string {
  let out = "";
  for (let i = 0; i < shape.order.length; i++) {
    const key = shape.order[i] as string;
    const text = writeCanonical(
      extra !== undefined && Object.hasOwn(extra, key) ? extra[key] : object[key],
      depth + 1,
    );
    if (text !== undefined)
      out += out === "" ? (shape.labels[i] as string).slice(1) + text : shape.labels[i] + text;
  }
  return `{${out}}`;
}

/** An object's keys in canonical order, each with its `,"key":` label written out. */
interface Shape {
  readonly keys: readonly string[];
  readonly order: readonly string[];
  readonly labels: readonly string[];
}

/**
 * Shapes seen lately, by key count. The objects hashed on every call (audit records, their
 * subjects, arguments) come in a few shapes over and over: finding one here costs a comparison
 * per key (property names are interned strings), sorting and quoting them costs far more.
 */
const shapes = new Map<number, Shape[]>();
const SHAPES_PER_LENGTH = 8;
const MAX_CACHED_KEYS = 64;

function shapeOf(keys: string[]): Shape {
  const cached = keys.length <= MAX_CACHED_KEYS ? shapes.get(keys.length) : undefined;
  if (cached) {
    for (const shape of cached) if (sameKeys(shape.keys, keys)) return shape;
  }
  const shape = newShape(keys);
  if (keys.length > MAX_CACHED_KEYS) return shape;
  if (!cached) shapes.set(keys.length, [shape]);
  else {
    // The newest first; the oldest goes once the bucket is full.
    cached.unshift(shape);
    if (cached.length > SHAPES_PER_LENGTH) cached.pop();
  }
  return shape;
}

function newShape(keys: string[]): Shape {
  const order = canonicalKeyOrder([...keys]);
  const labels = order.map((key) => {
    // A sorted copy's `__proto__` assignment sets a prototype instead of a key, and a copied
    // `toJSON` runs: both are left to the general path, which defines the output.
    if (key === "toJSON" || key === "__proto__") throw NOT_PLAIN;
    return `,${quote(key)}:`;
  });
  return { keys, order, labels };
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The key order of a sorted copy: an object lists array-index keys first, in numeric order,
 * whatever order they were inserted in, and then the other keys in insertion (here sorted) order.
 */
function canonicalKeyOrder(keys: string[]): string[] {
  keys.sort();
  if (!keys.some(isArrayIndex)) return keys;
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...keys.filter((key) => !isArrayIndex(key))];
}

const MAX_ARRAY_INDEX = 2 ** 32 - 2;

function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (first < 48 || first > 57) return false;
  return /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
