import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countLineFeeds, OutputCapture } from "./output-capture.js";
import { ProgressStream } from "./progress-stream.js";

describe("OutputCapture", () => {
  it("keeps everything under the bound", () => {
    const capture = new OutputCapture(1024);
    capture.push(Buffer.from("hello "));
    capture.push(Buffer.from("world"));
    expect(capture.text()).toEqual({ text: "hello world", totalBytes: 11, droppedBytes: 0, totalLines: 1 });
  });

  it("keeps the head and the tail of a long stream and marks the bytes dropped between them", () => {
    const capture = new OutputCapture(20);
    for (let i = 0; i < 100; i++) capture.push(Buffer.from(`${String(i).padStart(3, "0")}\n`));
    const { text, totalBytes, droppedBytes } = capture.text();
    expect(totalBytes).toBe(400);
    expect(droppedBytes).toBe(380);
    expect(text).toBe("000\n001\n00\n[… 380 bytes dropped …]\n7\n098\n099\n");
  });

  it("counts the lines of the whole stream, the dropped bytes included", () => {
    const capture = new OutputCapture(20);
    for (let i = 0; i < 100; i++) capture.push(Buffer.from(`${String(i).padStart(3, "0")}\n`));
    expect(capture.text()).toMatchObject({ totalLines: 100, tail: "7\n098\n099\n" });
    capture.push(Buffer.from("unterminated"));
    expect(capture.text().totalLines).toBe(101);
    expect(new OutputCapture(20).text().totalLines).toBe(0);
  });

  it("counts line feeds the same way whether they are sparse or dense", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 0, max: 255 }), (bytes, density) => {
        const mixed = bytes.map((b) => (b < density ? 10 : b));
        const expected = mixed.reduce((n, b) => n + (b === 10 ? 1 : 0), 0);
        expect(countLineFeeds(mixed)).toBe(expected);
      }),
    );
  });

  it("drops a codepoint cut at the gap instead of garbling it", () => {
    const capture = new OutputCapture(8);
    capture.push(Buffer.from("ééééé€€€€€"));
    const { text } = capture.text();
    expect(text).not.toContain("\ufffd");
    expect(text.startsWith("éé")).toBe(true);
    expect(text.endsWith("€")).toBe(true);
  });
});

describe("ProgressStream", () => {
  it("coalesces chunks into bounded events and counts what it skipped", async () => {
    const events: string[] = [];
    const stream = new ProgressStream((text) => events.push(text), { maxEventBytes: 8, intervalMs: 20 });
    for (let i = 0; i < 1000; i++) stream.push(Buffer.from("abcd"));
    await new Promise((resolve) => setTimeout(resolve, 60));
    stream.end();
    expect(events).toEqual(["abcdabcd\n[… 3992 bytes not streamed …]\n"]);
  });

  it("joins a multi-byte character split across chunks", () => {
    const events: string[] = [];
    const stream = new ProgressStream((text) => events.push(text));
    const bytes = Buffer.from("€");
    stream.push(bytes.subarray(0, 1));
    stream.flush();
    stream.push(bytes.subarray(1));
    stream.end();
    expect(events.join("")).toBe("€");
  });
});
