import Type from "typebox";
import { Check } from "typebox/value";
import { describe, expect, it } from "vitest";
import { StringRecord } from "./string-record.js";

/** The schema with its hidden properties (`~kind`) made visible, for a structural comparison. */
function withHidden(schema: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Reflect.ownKeys(schema)) {
    const descriptor = Object.getOwnPropertyDescriptor(schema, key) as PropertyDescriptor;
    out[String(key)] = { enumerable: descriptor.enumerable, value: descriptor.value };
  }
  return out;
}

const cases = [
  { name: "any string key", key: () => Type.String(), options: undefined },
  { name: "a key pattern", key: () => Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }), options: undefined },
  {
    name: "a key pattern and object options",
    key: () => Type.String({ pattern: "^PABLO_TASK_[A-Za-z0-9_]*$" }),
    options: { additionalProperties: false, maxProperties: 3, description: "d" },
  },
  {
    name: "key length bounds (ignored, as typebox ignores them)",
    key: () => Type.String({ minLength: 1, maxLength: 128 }),
    options: { default: {} },
  },
];

describe("StringRecord", () => {
  for (const { name, key, options } of cases) {
    it(`builds what Type.Record builds for ${name}`, () => {
      const value = Type.Object({ a: Type.Optional(Type.Integer()) }, { additionalProperties: false });
      const ours = StringRecord(key(), value, options);
      const theirs = Type.Record(key(), value, options);
      expect(withHidden(ours)).toEqual(withHidden(theirs));
      expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
      for (const sample of [
        {},
        { x: { a: 1 } },
        { "bad key!": {} },
        { x: { a: "1" } },
        { a: 1, b: 2, c: 3, d: 4 },
        [],
      ]) {
        expect(Check(ours, sample)).toBe(Check(theirs, sample));
      }
    });
  }

  it("takes a RegExp key pattern as Type.Record does", () => {
    const key = Type.String({ pattern: /^[a-z]+$/ as unknown as string });
    expect(withHidden(StringRecord(key, Type.String()))).toEqual(withHidden(Type.Record(key, Type.String())));
  });

  it("rejects keys outside the pattern and values outside the value schema", () => {
    const schema = StringRecord(Type.String({ pattern: "^[a-z]+$" }), Type.Integer(), {
      additionalProperties: false,
    });
    expect(Check(schema, { ok: 1 })).toBe(true);
    expect(Check(schema, { Bad: 1 })).toBe(false);
    expect(Check(schema, { ok: "1" })).toBe(false);
  });
});
