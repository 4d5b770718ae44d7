import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stripAnsi, truncateOutput } from "./index.js";
import { OutputCapture } from "./output-capture.js";
import { truncateCaptured } from "./truncate-output.js";

const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`);

describe("truncateOutput (seed 003's truncator)", () => {
  it("returns text within both bounds unchanged", () => {
    expect(truncateOutput("a\nb\n")).toBe("a\nb\n");
    expect(truncateOutput("")).toBe("");
  });

  it("keeps the last 200 lines by default and appends a marker counting the rest", () => {
    const out = truncateOutput(`${lines(250).join("\n")}\n`);
    expect(out.split("\n").slice(0, 2)).toEqual(["line 51", "line 52"]);
    expect(out.endsWith("line 250\n…[truncated 50 lines]")).toBe(true);
  });

  it("caps the whole result at max_chars, keeping the end and counting the cut lines", () => {
    const text = lines(10).join("\n");
    const out = truncateOutput(text, { maxLines: 100, maxChars: 40 });
    expect(out.length).toBeLessThanOrEqual(40);
    expect(out).toMatchInlineSnapshot(`
      "e 8
      line 9
      line 10
      …[truncated 8 lines]"
    `);
  });

  it("over a capture that dropped bytes, counts the lines lost in the gap and says bytes were cut", () => {
    const capture = new OutputCapture(40);
    capture.push(Buffer.from(`${lines(100).join("\n")}\n`));
    const captured = capture.text();
    expect(truncateCaptured(captured, { maxLines: 2 })).toBe(
      "line 99\nline 100\n…[truncated 98 lines; 752 bytes over max_output_bytes were not captured]",
    );
    // The whole capture fits: its own gap marker shows the cut.
    expect(truncateCaptured(captured, { maxLines: 50 })).toBe(captured.text);
    expect(captured.text).toContain("[… 752 bytes dropped …]");
  });

  it("counts a tail line that begins inside the dropped bytes as truncated", () => {
    const capture = new OutputCapture(16);
    capture.push(Buffer.from("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nend\n"));
    const out = truncateCaptured(capture.text(), { maxLines: 2, maxChars: 200 });
    expect(out).toBe("aaa\nend\n…[truncated 1 line; 29 bytes over max_output_bytes were not captured]");
  });

  it("strips ANSI colour, cursor and title escapes", () => {
    const text = "\u001b[1;31mred\u001b[0m \u001b]0;title\u0007plain\u001b[2K\u001bc";
    expect(stripAnsi(text)).toBe("red plain");
    expect(truncateOutput(text)).toBe("red plain");
  });

  it("never exceeds max_chars nor splits a surrogate pair, whatever the text", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 400 }),
        fc.integer({ min: 64, max: 300 }),
        fc.integer({ min: 1, max: 20 }),
        (text, maxChars, maxLines) => {
          const out = truncateOutput(text, { maxChars, maxLines });
          expect(out.length).toBeLessThanOrEqual(maxChars);
          expect(out).not.toMatch(/^[\udc00-\udfff]/);
        },
      ),
    );
  });
});
