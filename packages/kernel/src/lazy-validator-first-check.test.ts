import Type from "typebox";
import { describe, expect, it, vi } from "vitest";
import { lazyValidator } from "./lazy-validator.js";
import { compileValidator } from "./schema.js";

// Counts compilations, compiling as the real one does.
vi.mock("./schema.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./schema.js")>();
  return { ...actual, compileValidator: vi.fn(actual.compileValidator) };
});

const schema = Type.Object({ n: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

describe("a lazy validator's first check", () => {
  it("is interpreted, and the second compiles, with the compiler's answers each time", () => {
    const compile = vi.mocked(compileValidator);
    const eager = compileValidator(schema);
    compile.mockClear();
    const lazy = lazyValidator(schema);
    expect(lazy.check({ n: 0 })).toBe(false);
    expect(lazy.issues({ n: 0 })).toEqual(eager.issues({ n: 0 }));
    expect(compile).not.toHaveBeenCalled();
    expect(lazy.check({ n: 2 })).toBe(true);
    expect(compile).toHaveBeenCalledTimes(1);
    for (const value of [{ n: 2 }, { n: 0 }, { n: 0, x: 1 }, {}, "text"]) {
      expect(lazy.check(value)).toBe(eager.check(value));
      expect(lazy.issues(value)).toEqual(eager.issues(value));
    }
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it("compiles at once, and fails closed, when the compiler would refuse the schema", () => {
    const compile = vi.mocked(compileValidator);
    compile.mockClear();
    const bad = { type: "object", properties: { a: { type: "string", pattern: "[" } } };
    const lazy = lazyValidator(bad as unknown as typeof schema);
    expect(lazy.check({})).toBe(false);
    expect(compile).toHaveBeenCalledTimes(1);
  });
});
