import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLocalFs } from "../port/local.js";
import { createMemoryFs } from "../port/memory.js";
import { code, data, fsHarness, useTempDir, writeTree } from "../test-support/harness.js";
import { hookedPort } from "../test-support/port-hooks.js";
import { SCAN_CHUNK } from "../walk/scan.js";
import { sharedScanPool } from "../walk/scan-pool.js";

interface Found {
  matches: { path: string; line: number; column: number; text: string }[];
  files_scanned: number;
  skipped: { binary: number };
  bound: string | null;
}

/**
 * What fs.search must answer, computed the plain way: decode each file whole, split it into lines,
 * look for the query in each line as a string. A file holding the query but also a NUL byte or
 * invalid UTF-8 is binary and contributes nothing.
 */
function reference(files: Record<string, Buffer>, query: string) {
  const matches: Found["matches"] = [];
  let binary = 0;
  for (const path of Object.keys(files).sort(byteOrder)) {
    const bytes = files[path] as Buffer;
    if (!bytes.includes(Buffer.from(query))) continue;
    if (bytes.includes(0) || !isUtf8(bytes)) {
      binary++;
      continue;
    }
    bytes
      .toString("utf8")
      .split("\n")
      .forEach((line, i) => {
        const at = line.indexOf(query);
        if (at < 0) return;
        const text = line.endsWith("\r") ? line.slice(0, -1) : line;
        matches.push({ path, line: i + 1, column: [...line.slice(0, at)].length + 1, text });
      });
  }
  return { matches, binary };
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

// Pieces that make the fast path's shortcuts matter: the query and near misses of it, multi-byte
// characters (the column counts code points), CRLF, NUL and a lone continuation byte (binary).
const PIECES = ["needle", "need", "eedle", "nee dle", "é", "日本", "🙂", "\r\n", "\n", " ", "x_k", "\u0000"];
const piece = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...PIECES.map((p) => Buffer.from(p, "utf8"))) },
  { weight: 1, arbitrary: fc.constant(Buffer.from([0x80])) },
);
const content = fc.array(piece, { maxLength: 60 }).map((parts) => Buffer.concat(parts));
const tree = fc.dictionary(
  fc
    .tuple(fc.constantFrom("a", "b", "a/c", "é"), fc.constantFrom("f", "g", "h.txt", "日"))
    .map(([dir, name]) => `${dir}/${name}`),
  content,
  { minKeys: 1, maxKeys: 12 },
);

describe("fs.search against a plain line-by-line search", () => {
  it("answers the same on one thread, on worker threads, after a hand-off, and on the memory port", async () => {
    const serialIo = createLocalFs();
    await fc.assert(
      fc.asyncProperty(tree, fc.constantFrom("needle", "e", "日本", "dle\r"), async (files, query) => {
        const ws = useTempDir();
        writeTree(ws, files);
        const memory = createMemoryFs();
        memory.mkdirp("/ws");
        for (const [path, bytes] of Object.entries(files)) memory.writeFile(`/ws/${path}`, bytes);
        const expected = reference(files, query);
        const args = { query, max_matches: 10_000 };
        const hosts = [
          await fsHarness({ workspace: ws, io: serialIo, options: { quotas: { scan_bytes: 1e12 } } }),
          await fsHarness({ workspace: ws, io: createLocalFs({ scanStartupMs: 0 }) }),
          await fsHarness({ workspace: ws, io: createLocalFs({ scanStartupMs: 1e9 }) }),
          await fsHarness({ workspace: "/ws", io: memory }),
        ];
        for (const [i, host] of hosts.entries()) {
          // A running pool takes batches at once; stopped, the third host scans on this thread.
          if (i === 2) sharedScanPool().close();
          const found = data<Found>(await host.call("fs_search", args));
          expect(found.matches).toEqual(expected.matches);
          expect(found.skipped.binary).toBe(expected.binary);
          expect(found.files_scanned).toBe(Object.keys(files).length);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("hands off from this thread to the worker threads mid-walk without changing the answer", async () => {
    const ws = useTempDir();
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 300; i++)
      files[`d${i % 7}/f${String(i).padStart(3, "0")}`] = Buffer.from(
        i % 3 === 0 ? `line\r\nthe needle ${i} é\n` : `nothing ${i}\n`,
      );
    writeTree(ws, files);
    sharedScanPool().close();
    // Each open takes a millisecond or more: the workers start after about twenty files, and this
    // thread goes on scanning until they are up.
    const slow = hookedPort(createLocalFs({ scanStartupMs: 20 }), {
      before: { openFile: () => new Promise((resolve) => setTimeout(resolve, 1)) },
    });
    let opened = 0;
    const counted = hookedPort(slow, { after: { openFile: () => void opened++ } });
    const host = await fsHarness({ workspace: ws, io: counted });
    const found = data<Found>(await host.call("fs_search", { query: "needle", max_matches: 10_000 }));
    expect(found.matches).toEqual(reference(files, "needle").matches);
    // Some files were opened on this thread, the rest by the workers.
    expect(opened).toBeGreaterThan(5);
    expect(opened).toBeLessThan(290);
    const bounded = data<Found>(await host.call("fs_search", { query: "needle", max_matches: 30 }));
    expect(bounded.matches).toEqual(reference(files, "needle").matches.slice(0, 30));
    expect(bounded.bound).toBe("matches");
  });

  it("finds a match on the line that straddles a 4 MiB read of a large file", async () => {
    const ws = useTempDir();
    const line = "é".repeat(49).concat("\r\n"); // 100 bytes
    const before = line.repeat(Math.floor(SCAN_CHUNK / 100));
    // The read boundary falls inside "needle" on this line.
    const straddling = `${"z".repeat(SCAN_CHUNK - Buffer.byteLength(before) - 3)}needle🙂\r\n`;
    const text = `${before}${straddling}${line.repeat(10)}needle\n`;
    writeTree(ws, { "big.txt": text });
    const host = await fsHarness({ workspace: ws });
    const found = data<Found>(await host.call("fs_search", { query: "needle" }));
    expect(found.matches.map(({ line, column }) => [line, column])).toEqual(
      reference({ "big.txt": Buffer.from(text) }, "needle").matches.map(({ line, column }) => [line, column]),
    );
    expect(found.matches).toHaveLength(2);
  });

  it("still refuses what it refused: a path through a link", async () => {
    const ws = useTempDir();
    writeTree(ws, { "a/f": "needle\n" });
    const host = await fsHarness({ workspace: ws, io: createLocalFs({ scanStartupMs: 0 }) });
    expect(code(await host.call("fs_search", { path: "../x", query: "needle" }))).not.toBe("ok");
  });
});
