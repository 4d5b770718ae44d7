import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byteCommonness, findLines, indexOfLiteral, literalNeedle } from "./lines.js";

/** Every start of `query` in `hay`, as `Buffer.indexOf` finds them one after another. */
function plainStarts(hay: Buffer, query: Buffer): number[] {
  const starts: number[] = [];
  for (let at = hay.indexOf(query); at >= 0; at = hay.indexOf(query, at + 1)) starts.push(at);
  return starts;
}

function literalStarts(hay: Buffer, needle: ReturnType<typeof literalNeedle>): number[] {
  const starts: number[] = [];
  for (let at = indexOfLiteral(hay, needle, 0); at >= 0; at = indexOfLiteral(hay, needle, at + 1))
    starts.push(at);
  return starts;
}

// A few byte values, so candidates for the picked byte are dense and the pick changes.
const smallAlphabet = fc.constantFrom(...Buffer.from("ab_k\n\r\u00e9\u0000", "latin1"));

describe("indexOfLiteral", () => {
  it("finds exactly what Buffer.indexOf finds, while the needle changes its pick across haystacks", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 6 }).map((q) => Buffer.from(q.map((b) => b % 8))),
        fc.array(fc.uint8Array({ maxLength: 3000 }), { minLength: 1, maxLength: 6 }),
        (rawQuery, hays) => {
          // The same small alphabet for query and haystack: matches and false candidates both occur.
          const alphabet = Buffer.from("ab_k\n\r\u00e9\u0000", "latin1");
          const query = Buffer.from(rawQuery.map((b) => alphabet[b] as number));
          const needle = literalNeedle(query);
          for (const raw of hays) {
            const hay = Buffer.from(raw.map((b) => alphabet[b % 8] as number));
            expect(literalStarts(hay, needle)).toEqual(plainStarts(hay, query));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("agrees with Buffer.indexOf from any offset, including past the end", () => {
    fc.assert(
      fc.property(
        fc.array(smallAlphabet, { minLength: 1, maxLength: 5 }),
        fc.array(smallAlphabet, { maxLength: 400 }),
        fc.nat({ max: 420 }),
        (q, h, from) => {
          const query = Buffer.from(q);
          const hay = Buffer.from(h);
          expect(indexOfLiteral(hay, literalNeedle(query), from)).toBe(hay.indexOf(query, from));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("moves from a byte that turns out common to the next one, then to the whole query", () => {
    // "k" is the rarer byte of "ka" in typical text, but this text is made of it.
    const hay = Buffer.from(`${"kb".repeat(5000)}ka${"kb".repeat(10)}`);
    const needle = literalNeedle(Buffer.from("ka"));
    expect(needle.bytes[needle.order[0] as number]).toBe("k".charCodeAt(0));
    expect(indexOfLiteral(hay, needle, 0)).toBe(10_000);
    expect(needle.pick).toBe(1);
    // "a" is not in the text but for the match, so it stays picked.
    expect(indexOfLiteral(hay, needle, 10_001)).toBe(-1);
    expect(needle.pick).toBe(1);
    // Both bytes of "abb" are everywhere in this text: the needle ends up searching for the whole query.
    const dense = Buffer.from("ab".repeat(20_000));
    const both = literalNeedle(Buffer.from("abb"));
    expect(indexOfLiteral(dense, both, 0)).toBe(-1);
    expect(both.pick).toBe(both.order.length);
    expect(indexOfLiteral(Buffer.concat([dense, Buffer.from("abb")]), both, 0)).toBe(40_000);
  });

  it("starts with the query's byte rarest in typical text", () => {
    const first = (query: string) => {
      const needle = literalNeedle(Buffer.from(query));
      return String.fromCharCode(needle.bytes[needle.order[0] as number] as number);
    };
    expect(first("needle")).toBe("d");
    expect(first("the Quick")).toBe("Q");
    expect(first("a\u0000b")).toBe("\u0000");
    expect(byteCommonness(" ".charCodeAt(0))).toBeGreaterThan(byteCommonness("e".charCodeAt(0)));
  });
});

describe("findLines", () => {
  it("reports each matching line once with its number, code-point column and text without CR", () => {
    const chunk = Buffer.from("one\r\ntwo needle\r\nééé needle needle\nneedle", "utf8");
    const found = findLines(chunk, literalNeedle(Buffer.from("needle")), 0, 10, true);
    expect(found.matches).toEqual([
      { line: 2, column: 5, text: "two needle" },
      { line: 3, column: 5, text: "ééé needle needle" },
      { line: 4, column: 1, text: "needle" },
    ]);
    expect(found).toMatchObject({ linesAfter: 3, more: false });
  });
});
