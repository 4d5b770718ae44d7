import Type, { type TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { describe, expect, it } from "vitest";
import { compileValidator, createCatalog, PabloError } from "./index.js";
import { findUncompilablePattern, lazyValidator } from "./lazy-validator.js";
import { echoTool } from "./test-support/tools.js";

const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  additionalProperties: false,
  ...extra,
});

const cyclic = (() => {
  const node: Record<string, unknown> = closed({});
  (node["properties"] as Record<string, unknown>)["self"] = node;
  return node;
})();

// Schemas the compiler refuses and schemas it takes, among them look-alikes of the refused ones.
const SCHEMAS: Record<string, Record<string, unknown>> = {
  "an unterminated class in a pattern": closed({ a: { type: "string", pattern: "[" } }),
  "an unknown Unicode property": closed({ a: { type: "string", pattern: "\\p{Nope}" } }),
  "a bad patternProperties key": closed({}, { patternProperties: { "(": { type: "string" } } }),
  "a bad pattern under propertyNames": closed({}, { propertyNames: { pattern: "(" } }),
  "a bad pattern inside anyOf": closed({ a: { anyOf: [{ type: "string", pattern: "a{2,1}" }] } }),
  "a bad pattern in array items": closed({ a: { type: "array", items: { type: "string", pattern: "*" } } }),
  "pattern keys that only clash when joined": closed(
    { b: { type: "string" } },
    { patternProperties: { "(?<n>x)": { type: "string" }, "(?<n>y)": { type: "string" } } },
  ),
  "a valid pattern": closed({ a: { type: "string", pattern: "^[a-z]+$" } }),
  "a property named pattern": closed({ pattern: { type: "string" } }),
  "a pattern-looking default": closed({ a: { type: "string", default: "[" } }),
  "a pattern-looking const": closed({ a: { const: { pattern: "[" } } }),
  "pattern-looking property names": closed({ "(": { type: "string" }, "[x": { type: "string" } }),
  "joined pattern keys under additionalProperties true": {
    type: "object",
    patternProperties: { "(?<n>x)": { type: "string" }, "(?<n>y)": { type: "string" } },
    additionalProperties: true,
  },
};

function compiles(schema: unknown): boolean {
  try {
    Compile(schema as TSchema);
    return true;
  } catch {
    return false;
  }
}

function registrationCode(tool: ReturnType<typeof echoTool>): string | undefined {
  try {
    createCatalog([tool]);
    return undefined;
  } catch (error) {
    return error instanceof PabloError ? error.code : "not-a-pablo-error";
  }
}

describe("validators compiled on first use", () => {
  it.each(Object.entries(SCHEMAS))(
    "registration refuses %s exactly when compiling it fails, input or output",
    (_what, schema) => {
      const expected = compiles(schema) ? undefined : "INVALID_TOOL_DEFINITION";
      const asInput = echoTool({ inputSchema: schema as TSchema });
      const asOutput = echoTool({ outputSchema: schema as TSchema });
      // An open object is refused as an input before anything is compiled; only closed ones count.
      if (schema["additionalProperties"] === false) expect(registrationCode(asInput)).toBe(expected);
      expect(registrationCode(asOutput)).toBe(expected);
    },
  );

  it("refuses a cyclic output schema, as compiling it did", () => {
    expect(compiles(cyclic)).toBe(false);
    expect(registrationCode(echoTool({ outputSchema: cyclic as TSchema }))).toBe("INVALID_TOOL_DEFINITION");
  });

  it("says which expression does not compile, and where", () => {
    expect(findUncompilablePattern(SCHEMAS["a bad pattern inside anyOf"])).toEqual({
      pointer: "#/properties/a/anyOf/0/pattern",
      message: expect.stringMatching(/numbers out of order/),
    });
    expect(() =>
      createCatalog([echoTool({ inputSchema: SCHEMAS["a bad patternProperties key"] as TSchema })]),
    ).toThrow(/schema does not compile: .* at #\/patternProperties\/\(/);
  });

  it("checks and reports what the validator compiled at once does, every time", () => {
    const schema = Type.Object({ n: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
    const lazy = lazyValidator(schema);
    const eager = compileValidator(schema);
    for (const value of [{ n: 2 }, { n: 0 }, { n: 0, x: 1 }, {}, "text", { n: 3 }]) {
      expect(lazy.check(value)).toBe(eager.check(value));
      expect(lazy.issues(value)).toEqual(eager.issues(value));
    }
    expect(lazy.issues({ n: 0, x: 1 }, 1)).toHaveLength(1);
  });

  it("fails closed when a schema does not compile after all", () => {
    const validator = lazyValidator(closed({ a: { type: "string", pattern: "[" } }) as TSchema);
    expect(validator.check({})).toBe(false);
    expect(validator.check({ a: "x" })).toBe(false);
    expect(validator.issues({})).toEqual([
      {
        path: "/",
        message: expect.stringMatching(/^the schema does not compile: Invalid regular expression/),
      },
    ]);
  });
});
