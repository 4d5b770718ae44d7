import fc from "fast-check";
import Type from "typebox";
import { describe, expect, it } from "vitest";
import { resolveSection } from "./index.js";

const Section = Type.Object(
  {
    revisions: Type.Optional(
      Type.Union([Type.Literal("off"), Type.Literal("tracked")], { description: "Revision tracking." }),
    ),
    quotas: Type.Optional(
      Type.Object(
        { entries: Type.Optional(Type.Integer({ minimum: 1, description: "Most entries." })) },
        { additionalProperties: false, description: "Bounds." },
      ),
    ),
    roots: Type.Optional(
      Type.Record(Type.String(), Type.String({ description: "A folder." }), { description: "Roots." }),
    ),
  },
  { additionalProperties: false },
);

describe("resolveSection", () => {
  it("returns the value itself when the schema admits it, and an absent section as an empty table", () => {
    const value = { revisions: "tracked", quotas: { entries: 3 } };
    expect(resolveSection(Section, value)).toEqual({ ok: true, value });
    expect(resolveSection(Section, undefined)).toEqual({ ok: true, value: {} });
    expect(resolveSection(Section, null).ok).toBe(false);
  });

  it("locates an unknown key and suggests the key that was meant", () => {
    expect(resolveSection(Section, { revison: "off" })).toEqual({
      ok: false,
      errors: [
        {
          kind: "unknown-key",
          path: "/revison",
          keys: ["revison"],
          message: 'unknown key "revison"; did you mean "revisions"?',
        },
      ],
    });
  });

  it("lists the allowed keys of a nested table when no key is close", () => {
    expect(resolveSection(Section, { quotas: { zzzzzz: 1 } })).toEqual({
      ok: false,
      errors: [
        {
          kind: "unknown-key",
          path: "/quotas/zzzzzz",
          keys: ["quotas", "zzzzzz"],
          message: 'unknown key "zzzzzz"; allowed here: entries',
        },
      ],
    });
  });

  it("says what shape a key of a table of names must have", () => {
    const Named = Type.Object(
      {
        roots: Type.Record(Type.String({ pattern: "^[a-z]+$" }), Type.String(), {
          additionalProperties: false,
          description: "Roots.",
        }),
      },
      { additionalProperties: false },
    );
    expect(resolveSection(Named, { roots: { "a/b": "x" } })).toMatchObject({
      ok: false,
      errors: [
        {
          kind: "unknown-key",
          path: "/roots/a~1b",
          message: 'unknown key "a/b"; a key here must match ^[a-z]+$',
        },
      ],
    });
  });

  it("tells a value that has one variant's type that variant's own problem", () => {
    const Root = Type.Object(
      {
        root: Type.Union([
          Type.String({ pattern: "^/" }),
          Type.Object({ name: Type.String() }, { additionalProperties: false }),
        ]),
      },
      { additionalProperties: false },
    );
    expect(resolveSection(Root, { root: "relative" })).toMatchObject({
      ok: false,
      errors: [{ kind: "invalid", path: "/root", message: 'must match pattern "^/"' }],
    });
    expect(resolveSection(Root, { root: 7 })).toMatchObject({
      ok: false,
      errors: [{ path: "/root", message: "must be a string or a table with name (got 7)" }],
    });
  });

  it("says which literal values are allowed and what was given", () => {
    const result = resolveSection(Section, { revisions: "trakced" });
    expect(result).toMatchObject({
      ok: false,
      errors: [
        { kind: "invalid", path: "/revisions", message: 'must be "off" or "tracked" (got "trakced")' },
      ],
    });
  });

  it("keeps the validator's message where the schema has nothing clearer, escaping keys in the path", () => {
    const result = resolveSection(Section, { quotas: { entries: 0 }, roots: { "a/b": 7 } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.path)).toEqual(["/quotas/entries", "/roots/a~1b"]);
    expect(result.errors.map((e) => e.keys)).toEqual([
      ["quotas", "entries"],
      ["roots", "a/b"],
    ]);
    expect(result.errors.every((e) => e.kind === "invalid" && e.message.length > 0)).toBe(true);
  });

  it("stops at max errors", () => {
    const result = resolveSection(Section, { a: 1, b: 2, c: 3 }, { max: 2 });
    expect(result.ok ? [] : result.errors.map((e) => e.path)).toEqual(["/a", "/b"]);
  });

  it("never throws, whatever the value", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = resolveSection(Section, value);
        expect(typeof result.ok).toBe("boolean");
      }),
    );
  });
});
