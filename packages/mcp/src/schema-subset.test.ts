import { compileValidator } from "@pablo/kernel";
import type { TSchema } from "typebox";
import { describe, expect, it } from "vitest";
import { boundOutputSchema, closeInputSchema } from "./schema-subset.js";

const close = (schema: unknown) => {
  const result = closeInputSchema(schema);
  if (!result.ok) throw new Error(`${result.pointer}: ${result.reason}`);
  return result.schema;
};

describe("closing input schemas", () => {
  it("closes every object and keeps the documented keywords", () => {
    expect(
      close({
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: {
          name: { type: "string", minLength: 1, description: "Name" },
          tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 3 },
          where: { type: "object", properties: { x: { type: "number", minimum: 0 } }, required: ["x"] },
          maybe: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Maybe" },
          either: { type: ["integer", "null"] },
        },
        required: ["name"],
      }),
    ).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "either": {
            "type": [
              "integer",
              "null",
            ],
          },
          "maybe": {
            "anyOf": [
              {
                "type": "string",
              },
              {
                "type": "null",
              },
            ],
            "default": null,
            "title": "Maybe",
          },
          "name": {
            "description": "Name",
            "minLength": 1,
            "type": "string",
          },
          "tags": {
            "items": {
              "enum": [
                "a",
                "b",
              ],
              "type": "string",
            },
            "maxItems": 3,
            "type": "array",
          },
          "where": {
            "additionalProperties": false,
            "properties": {
              "x": {
                "minimum": 0,
                "type": "number",
              },
            },
            "required": [
              "x",
            ],
            "type": "object",
          },
        },
        "required": [
          "name",
        ],
        "type": "object",
      }
    `);
  });

  it("inlines local $defs references (as pydantic writes them)", () => {
    const schema = close({
      type: "object",
      properties: { point: { $ref: "#/$defs/Point" } },
      $defs: {
        Point: { type: "object", properties: { x: { type: "integer" } }, required: ["x"], title: "Point" },
      },
    });
    const validator = compileValidator(schema as unknown as TSchema);
    expect(validator.check({ point: { x: 1 } })).toBe(true);
    expect(validator.check({ point: { x: 1, y: 2 } })).toBe(false);
    expect(validator.check({ point: { x: 1 }, extra: true })).toBe(false);
  });

  it("caps the length of strings that carry a pattern", () => {
    const schema = close({ type: "object", properties: { id: { type: "string", pattern: "^[a-z]+$" } } });
    expect(schema["properties"]).toEqual({ id: { type: "string", maxLength: 1024, pattern: "^[a-z]+$" } });
  });

  it("closes an empty root (a tool without arguments)", () => {
    expect(close({ type: "object" })).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
  });

  it.each([
    [{ type: "array" }, "#", 'the root must have type "object"'],
    [{ type: "object", properties: { m: { type: "object" } } }, "#/properties/m", "free-form object"],
    [
      { type: "object", additionalProperties: { type: "string" } },
      "#/additionalProperties",
      "cannot be closed",
    ],
    [{ type: "object", properties: { a: {} } }, "#/properties/a", "without a type"],
    [{ type: "object", properties: { a: { oneOf: [{ type: "string" }] } } }, "#/properties/a", '"oneOf"'],
    [
      { type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" } } },
      "#/properties/a/pattern",
      "repeats",
    ],
    [{ type: "object", properties: { a: { type: "array" } } }, "#/properties/a", "items are not described"],
    [
      { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { $ref: "#/$defs/A" } } },
      "#/properties/a",
      "recursive",
    ],
    [
      { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } },
      "#/properties/a",
      "only local",
    ],
    [{ type: "object", required: ["ghost"] }, "#/required", "not declared"],
    [{ type: "object", properties: { a: { type: ["object", "null"] } } }, "#/properties/a", "type list"],
    [{ type: "object", patternProperties: { "^x": { type: "string" } } }, "#", '"patternProperties"'],
  ])("leaves out %j", (schema, pointer, reason) => {
    const result = closeInputSchema(schema);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.pointer).toBe(pointer);
      expect(result.reason).toContain(reason);
    }
  });

  it("bounds size, depth and node count", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 20; i++) deep = { type: "object", properties: { d: deep } };
    expect(closeInputSchema(deep)).toMatchObject({ ok: false, reason: "schema nested too deeply" });
    const wide = {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, { type: "string" }])),
    };
    expect(closeInputSchema(wide)).toMatchObject({ ok: false, reason: "more than 256 properties" });
    const huge = { type: "object", description: "x".repeat(200_000) };
    expect(closeInputSchema(huge)).toMatchObject({ ok: false, reason: "schema larger than 131072 bytes" });
  });
});

describe("output schemas", () => {
  it("keep the openness the server declared", () => {
    const result = boundOutputSchema({
      type: "object",
      properties: { n: { type: "number" }, meta: { type: "object" }, anything: {} },
      required: ["n"],
    });
    expect(result).toEqual({
      ok: true,
      schema: {
        type: "object",
        properties: { n: { type: "number" }, meta: { type: "object", properties: {} }, anything: {} },
        required: ["n"],
      },
    });
  });

  it("refuse patterns, which would run on unbounded server output", () => {
    expect(
      boundOutputSchema({ type: "object", properties: { s: { type: "string", pattern: "^a$" } } }),
    ).toMatchObject({
      ok: false,
      pointer: "#/properties/s/pattern",
    });
  });
});
