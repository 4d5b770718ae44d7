import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { code, data, fsHarness } from "../test-support/harness.js";
import { PORTS, portWorkspace } from "../test-support/ports.js";

interface Page {
  path: string;
  size: number;
  offset: number;
  bytes: number;
  next_offset: number | null;
  end: boolean;
  revision: string;
  content: string;
}

const sha256 = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex");

describe.each(PORTS)("fs.read on the %s port", (kind) => {
  async function setup(files: Record<string, string | Uint8Array>, options = {}) {
    const w = portWorkspace(kind);
    for (const [path, content] of Object.entries(files)) w.write(path, content);
    const h = await fsHarness({ workspace: w.ws, io: w.io, options });
    return { w, h };
  }

  it("returns a page with pagination metadata and the SHA-256 of the whole file", async () => {
    const text = "line one\nline two\nline three\n";
    const { h } = await setup({ "notes.txt": text });
    const page = data<Page>(await h.call("fs_read", { path: "notes.txt", offset: 5, limit: 8 }));
    expect(page).toEqual({
      path: "notes.txt",
      root: "workspace",
      size: text.length,
      offset: 5,
      bytes: 8,
      next_offset: 13,
      end: false,
      revision: sha256(text),
      content: "one\nline",
    });
    const last = data<Page>(await h.call("fs_read", { path: "notes.txt", offset: 23 }));
    expect(last).toMatchObject({ content: "three\n", next_offset: null, end: true });
    const atEnd = data<Page>(await h.call("fs_read", { path: "notes.txt", offset: text.length }));
    expect(atEnd).toMatchObject({ content: "", bytes: 0, end: true });
    expect(code(await h.call("fs_read", { path: "notes.txt", offset: text.length + 1 }))).toBe(
      "INVALID_ARGUMENT",
    );
  });

  it("never splits a code point, at every offset and page size of multi-byte text", async () => {
    const text = "aé€😀b\n€😀é".repeat(2);
    const bytes = Buffer.from(text, "utf8");
    const { h } = await setup({ "utf8.txt": text });
    for (const limit of [1, 2, 3, 4, 5, 7]) {
      for (let offset = 0; offset <= bytes.length; offset++) {
        const page = data<Page>(await h.call("fs_read", { path: "utf8.txt", offset, limit }));
        expect(
          Buffer.from(page.content, "utf8").equals(bytes.subarray(page.offset, page.offset + page.bytes)),
        ).toBe(true);
        expect(page.offset).toBeLessThanOrEqual(offset);
        expect(offset - page.offset).toBeLessThan(4);
        expect(page.bytes <= limit || [...page.content].length === 1).toBe(true);
      }
      let joined = "";
      let next: number | null = 0;
      while (next !== null) {
        const page: Page = data<Page>(await h.call("fs_read", { path: "utf8.txt", offset: next, limit }));
        joined += page.content;
        next = page.next_offset;
      }
      expect(joined).toBe(text);
    }
  });

  it("refuses invalid UTF-8 with its own code and the offending offset", async () => {
    const bytes = Buffer.concat([Buffer.from("valid "), Buffer.from([0xc3, 0x28]), Buffer.from(" rest")]);
    const { h } = await setup({ "bad.txt": bytes });
    const result = await h.call("fs_read", { path: "bad.txt" });
    expect(code(result)).toBe("INVALID_UTF8");
    expect(!result.ok && result.error.details).toMatchObject({ offset: 6, revision: sha256(bytes) });
    const before = data<Page>(await h.call("fs_read", { path: "bad.txt", limit: 6 }));
    expect(before.content).toBe("valid ");
  });

  it("refuses a directory with a suggestion to use fs.glob or fs.list", async () => {
    const { h } = await setup({ "src/a.ts": "x" });
    const result = await h.call("fs_read", { path: "src" });
    expect(code(result)).toBe("INVALID_ARGUMENT");
    expect(!result.ok && result.error.message).toMatch(/fs\.list|fs\.glob/);
    expect(!result.ok && result.error.details?.["suggestion"]).toEqual({
      tool: "fs.glob",
      args: { path: "src", pattern: "**/*" },
    });
  });

  it("reports a missing file as NOT_FOUND and a file over the byte quota as LIMIT_EXCEEDED", async () => {
    const { h } = await setup({ "big.txt": "x".repeat(100) }, { quotas: { file_bytes: 99 } });
    expect(code(await h.call("fs_read", { path: "nope.txt" }))).toBe("NOT_FOUND");
    expect(code(await h.call("fs_read", { path: "big.txt" }))).toBe("LIMIT_EXCEEDED");
  });

  it("refuses a symbolic link at the leaf", async () => {
    const { w, h } = await setup({ "a.txt": "a" });
    w.symlink("a.txt", "link");
    expect(code(await h.call("fs_read", { path: "link" }))).toBe("SYMLINK_REFUSED");
  });
});
