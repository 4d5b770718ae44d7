import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, canonicalJsonWith } from "./json.js";

/**
 * The definition canonical JSON had before it was written directly: a copy with every object's
 * keys inserted in sorted order, then JSON.stringify. Hashes of stored audit records and tool
 * definitions depend on it, so the direct writer must agree with it on every value.
 */
function sortedCopyJson(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) out[key] = sortKeys((v as Record<string, unknown>)[key]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sortKeys(value));
}

describe("canonical JSON", () => {
  it("writes exactly what a sorted copy's JSON.stringify writes, for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(sortedCopyJson(value));
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees when objects of one key set come back in other orders, values and more shapes than it keeps", () => {
    // Key sets drawn from a small pool, so shapes repeat, collide in length and overflow the
    // writer's memory of recent shapes; each object is checked on its own.
    const pool = ["a", "b", "c", "d", "e", "f", "g", "10", "2", "__proto__", "toJSON", "h i", "\u00e9"];
    const keyed = fc.uniqueArray(fc.constantFrom(...pool), { maxLength: pool.length });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(keyed, fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 13, maxLength: 13 })), {
          minLength: 1,
          maxLength: 40,
        }),
        (objects) => {
          for (const [keys, values] of objects) {
            const value: Record<string, unknown> = {};
            for (const [i, key] of keys.entries()) {
              Object.defineProperty(value, key, {
                value: values[i],
                enumerable: true,
                writable: true,
                configurable: true,
              });
            }
            expect(canonicalJson(value)).toBe(sortedCopyJson(value));
            expect(canonicalJson({ nested: value, list: [value, value] })).toBe(
              sortedCopyJson({ nested: value, list: [value, value] }),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("agrees on text that needs escaping: quotes, backslashes, controls, lone and paired surrogates", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: "binary" }), fc.string({ unit: "binary" })), (value) => {
        expect(canonicalJson(value)).toBe(sortedCopyJson(value));
      }),
      { numRuns: 2000 },
    );
    const odd = { 'q"': 'a"b\\c', "\u0001": "\n\t\u2028", "\ud800": "\udc00x", "😀": "😀" };
    expect(canonicalJson(odd)).toBe(sortedCopyJson(odd));
  });

  it("agrees on values JSON leaves out or changes: undefined, NaN, -0, holes, dates, functions, toJSON", () => {
    const values: unknown[] = [
      {
        a: undefined,
        b: Number.NaN,
        c: -0,
        d: Number.POSITIVE_INFINITY,
        e: Object.assign(new Array(3), { 2: 1 }),
      },
      { when: new Date(0), list: [() => 1, Symbol("s")], f: () => 1 },
      { toJSON: () => "replaced", z: 1 },
      JSON.parse(`{"__proto__":{"x":1},"10":1,"9":2,"a":3,"4294967295":4}`),
      [new Map([[1, 2]]), new Set([1]), Object.create(null)],
      undefined,
      "top",
      12.5e30,
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(sortedCopyJson(value));
  });

  it("fails as JSON.stringify does on a BigInt", () => {
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });

  it("writes fields added at the top level exactly as a copy holding both would be written", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
        (value, extra) => {
          expect(canonicalJsonWith(value, extra)).toBe(sortedCopyJson({ ...value, ...extra }));
        },
      ),
      { numRuns: 2000 },
    );
    // A key in both (the added one wins), names an object's prototype answers to, array-index
    // keys that sort numerically, and values the direct writer hands to the general path.
    const cases: [object, Record<string, unknown>][] = [
      [
        { seq: 4, a: 1 },
        { seq: 5, prev: "x" },
      ],
      [
        { constructor: 1, toString: 2 },
        { seq: 0, prev: "0" },
      ],
      [
        { 10: "a", 2: "b", z: 1 },
        { 1: "c", seq: 3 },
      ],
      [{ f: () => 1, d: new Date(0) }, { seq: 1 }],
      [Object.assign(Object.create(null), { b: 1 }), { a: 2 }],
    ];
    for (const [value, extra] of cases)
      expect(canonicalJsonWith(value, extra)).toBe(sortedCopyJson({ ...value, ...extra }));
  });
});
