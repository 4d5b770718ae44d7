import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundResult, type JsonValue, type ToolResult, utf8ByteLength } from "./index.js";

const escapeHeavy = fc.string({
  unit: fc.constantFrom("\u0000", "\u001f", '"', "\\", "\n", "é", "😀", "a", "\ud800"),
});
const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    escapeHeavy,
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 5 }),
  ),
})).value;

const results: fc.Arbitrary<ToolResult> = fc.oneof(
  json.map((data): ToolResult => ({ ok: true, data })),
  fc
    .record({ code: fc.constantFrom("TOOL_FAILED", "INVALID_ARGUMENT"), message: escapeHeavy, detail: json })
    .map(
      ({ code, message, detail }): ToolResult => ({
        ok: false,
        error: { code, message, details: { detail } },
      }),
    ),
);

describe("result bound", () => {
  it("never lets a serialized result exceed its bound, and keeps it valid JSON with a marker", () => {
    fc.assert(
      fc.property(results, fc.integer({ min: 512, max: 4096 }), (result, bound) => {
        const { result: bounded, serialized } = boundResult(result, bound);
        expect(utf8ByteLength(serialized)).toBeLessThanOrEqual(bound);
        expect(JSON.parse(serialized)).toEqual(JSON.parse(JSON.stringify(bounded)));
        const original = utf8ByteLength(JSON.stringify(result));
        if (original > bound) {
          expect(bounded.truncated).toEqual({ originalBytes: original, limitBytes: bound });
          expect(bounded.ok).toBe(result.ok);
          if (!result.ok && !bounded.ok) expect(bounded.error.code).toBe(result.error.code);
        } else {
          expect(bounded).toBe(result);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("holds for strings made only of characters JSON escapes to six bytes", () => {
    const nul = "\u0000".repeat(300_000);
    const { serialized, result } = boundResult({ ok: true, data: nul }, 1024 * 1024);
    expect(utf8ByteLength(serialized)).toBeLessThanOrEqual(1024 * 1024);
    expect(result.truncated?.originalBytes).toBe(6 * 300_000 + JSON.stringify({ ok: true, data: "" }).length);
    const preview = (JSON.parse(serialized) as { data: { preview: string } }).data.preview;
    expect(preview.length).toBeGreaterThan(100_000);
  });

  it("keeps committed: true when it truncates", () => {
    const { result } = boundResult({ ok: true, data: "x".repeat(10_000), committed: true }, 1000);
    expect(result).toMatchObject({ ok: true, committed: true, truncated: { limitBytes: 1000 } });
  });
});
