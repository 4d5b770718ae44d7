import { readdirSync, readlinkSync, realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createLocalFs } from "../port/local.js";
import { code, data, fsHarness } from "../test-support/harness.js";
import { hookedPort } from "../test-support/port-hooks.js";
import { PORTS, portWorkspace } from "../test-support/ports.js";

interface Found {
  matches: { path: string; line: number; column: number; text: string; text_truncated?: boolean }[];
  files_scanned: number;
  bytes_scanned: number;
  skipped: { symlinks: number; special: number; binary: number; large: number; excluded: number };
  bound: string | null;
  complete: boolean;
}

describe.each(PORTS)("fs.search on the %s port", (kind) => {
  function tree() {
    const w = portWorkspace(kind);
    w.write("b/two.ts", "let needle = 2;\nnothing\n");
    w.write("a/one.ts", "first\n  needle here, needle again\n");
    w.write("a/one.md", "needle in markdown\n");
    w.write("a/deeper/three.ts", "needle\n");
    w.write("c.ts", "Needle is not needle-cased... needle\n");
    w.write("binary.bin", Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]));
    w.write("latin1.txt", Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0xe9, 0x0a]));
    w.symlink("a", "link");
    return w;
  }

  it("finds literal, case-sensitive matches with line and code-point column, in a deterministic order", async () => {
    const w = tree();
    w.write("u.txt", "ééé needle\n");
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    const found = data<Found>(await h.call("fs_search", { query: "needle" }));
    expect(found.matches.map((m) => [m.path, m.line, m.column])).toEqual([
      ["a/deeper/three.ts", 1, 1],
      ["a/one.md", 1, 1],
      ["a/one.ts", 2, 3],
      ["b/two.ts", 1, 5],
      ["c.ts", 1, 15],
      ["u.txt", 1, 5],
    ]);
    expect(found.matches[2]?.text).toBe("  needle here, needle again");
    expect(found.skipped).toMatchObject({ symlinks: 1, binary: 2 });
    expect(found).toMatchObject({ bound: null, complete: true });
  });

  it("searches one named file without walking its siblings, still applying include", async () => {
    const w = tree();
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    const one = data<Found>(await h.call("fs_search", { path: "a/one.ts", query: "needle" }));
    expect(one.matches.map((m) => m.path)).toEqual(["a/one.ts"]);
    expect(one.files_scanned).toBe(1);
    const excluded = data<Found>(
      await h.call("fs_search", { path: "a/one.ts", query: "needle", include: "*.md" }),
    );
    expect(excluded.matches).toEqual([]);
    const md = data<Found>(await h.call("fs_search", { query: "needle", include: "*.{md,txt}" }));
    expect(md.matches.map((m) => m.path)).toEqual(["a/one.md"]);
  });

  it("says which bound stopped it: matches, scan bytes, depth or entries", async () => {
    const w = tree();
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    expect(data<Found>(await h.call("fs_search", { query: "needle", max_matches: 2 }))).toMatchObject({
      bound: "matches",
      complete: false,
    });
    const exact = data<Found>(await h.call("fs_search", { query: "needle", path: "b", max_matches: 1 }));
    expect(exact).toMatchObject({ bound: null, complete: true });
    expect(data<Found>(await h.call("fs_search", { query: "needle", max_depth: 1 })).bound).toBe("depth");
    const scan = await fsHarness({ workspace: w.ws, io: w.io, options: { quotas: { scan_bytes: 40 } } });
    const scanned = data<Found>(await scan.call("fs_search", { query: "needle" }));
    expect(scanned.bound).toBe("scan_bytes");
    expect(scanned.bytes_scanned).toBeLessThanOrEqual(40);
    const entries = await fsHarness({ workspace: w.ws, io: w.io, options: { quotas: { entries: 2 } } });
    expect(data<Found>(await entries.call("fs_search", { query: "needle" })).bound).toBe("entries");
    const large = await fsHarness({ workspace: w.ws, io: w.io, options: { quotas: { file_bytes: 10 } } });
    expect(data<Found>(await large.call("fs_search", { query: "needle" })).skipped.large).toBeGreaterThan(0);
  });

  it("numbers lines across the 4 MiB reads of a large file and windows very long lines", async () => {
    const w = portWorkspace(kind);
    const line = `${"x".repeat(99)}\n`;
    const lines = Array.from({ length: 50_000 }, () => line);
    for (const at of [0, 41_942, 41_943, 41_944, 49_999])
      lines[at] = `${"y".repeat(40)}needle${"y".repeat(53)}\n`;
    lines[30_000] = `${"z".repeat(5000)}needle${"z".repeat(5000)}\n`;
    w.write("big.txt", lines.join(""));
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    const found = data<Found>(await h.call("fs_search", { query: "needle", max_matches: 100 }));
    expect(found.matches.map((m) => m.line)).toEqual([1, 30_001, 41_943, 41_944, 41_945, 50_000]);
    expect(found.matches[1]).toMatchObject({ column: 5001, text_truncated: true });
    expect(found.matches[1]?.text.length).toBeLessThan(500);
    expect(found.bytes_scanned).toBe(Buffer.byteLength(lines.join("")));
  });

  it("refuses a missing path and a path through a link", async () => {
    const w = tree();
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    expect(code(await h.call("fs_search", { path: "nope", query: "x" }))).toBe("NOT_FOUND");
    expect(code(await h.call("fs_search", { path: "link", query: "x" }))).toBe("SYMLINK_REFUSED");
  });
});

describe("parallel and serial search", () => {
  it("give the same answer, bounds and counts, on the worker threads and on one thread", async () => {
    const w = portWorkspace("local");
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    for (let i = 0; i < 400; i++) {
      const dir = `d${Math.floor(random() * 6)}/e${Math.floor(random() * 4)}`;
      const lines = Array.from({ length: 20 }, (_, n) => (random() < 0.05 ? `x needle ${n}` : `line ${n}`));
      w.write(`${dir}/f${i}.${random() < 0.5 ? "ts" : "md"}`, `${lines.join("\n")}\n`);
    }
    w.write("d0/bin.dat", Buffer.from("needle\u0000"));
    w.symlink("d1", "d0/link");
    // Start-up 0: every batch goes to the worker threads, however small the tree.
    const parallel = await fsHarness({ workspace: w.ws, io: createLocalFs({ scanStartupMs: 0 }) });
    // A scan-byte quota keeps a search on one thread; this one is too large to bind.
    const serial = await fsHarness({ workspace: w.ws, options: { quotas: { scan_bytes: 1e12 } } });
    const bounds: (string | null)[] = [];
    for (const args of [
      { query: "needle", max_matches: 10_000 },
      { query: "needle", max_matches: 7 },
      { query: "needle", include: "*.ts", max_matches: 10_000 },
      { query: "needle", max_depth: 2 },
      { query: "absent" },
    ]) {
      const a = data<Found>(await parallel.call("fs_search", args));
      const b = data<Found>(await serial.call("fs_search", args));
      expect(a).toEqual(b);
      bounds.push(a.bound);
      if (Object.keys(args).length === 1 && args.query === "needle")
        expect(a.matches.length).toBeGreaterThan(100);
    }
    expect(bounds).toEqual([null, "matches", null, "depth", null]);
    const entries = await fsHarness({
      workspace: w.ws,
      io: createLocalFs({ scanStartupMs: 0 }),
      options: { quotas: { entries: 150 } },
    });
    const entriesSerial = await fsHarness({
      workspace: w.ws,
      options: { quotas: { entries: 150, scan_bytes: 1e12 } },
    });
    expect(data(await entries.call("fs_search", { query: "needle" }))).toEqual(
      data(await entriesSerial.call("fs_search", { query: "needle" })),
    );
  });
});

describe("cancellation", () => {
  it.each([
    ["on worker threads", {}],
    ["on one thread", { quotas: { scan_bytes: 1e12 } }],
  ])("stops a search %s and leaves no descriptor open", async (_, options) => {
    const w = portWorkspace("local");
    for (let i = 0; i < 60; i++) w.write(`d${i % 6}/sub/f${i}.txt`, "needle\n".repeat(50));
    const openDescriptors = () => readdirSync("/proc/self/fd").length;
    // Descriptors on the workspace's files and folders (the port holds the root open): what a
    // search opens, and none may outlive it. The whole count may also drop while the search runs
    // (the process closes descriptors of its own, such as a worker thread's event loop ending), but
    // never grow.
    const workspace = realpathSync(w.ws);
    const workspaceDescriptors = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          const target = readlinkSync(`/proc/self/fd/${fd}`);
          return target === workspace || target.startsWith(`${workspace}/`);
        } catch {
          return false; // closed since the listing
        }
      });
    const controller = new AbortController();
    let armed = false;
    let lists = 0;
    const io = hookedPort(createLocalFs({ scanStartupMs: 0 }), {
      after: {
        list: () => {
          if (armed && ++lists === 5) controller.abort();
        },
      },
    });
    const h = await fsHarness({ workspace: w.ws, io, options });
    // A first search starts the worker threads, whose event loops hold descriptors of their own.
    data(await h.call("fs_search", { query: "warm-up", path: "d0" }));
    armed = true;
    const before = openDescriptors();
    const held = workspaceDescriptors();
    const result = await h.call("fs_search", { query: "needle", max_matches: 10_000 }, controller.signal);
    expect(code(result)).toBe("TOOL_CANCELLED");
    expect(workspaceDescriptors()).toEqual(held);
    expect(openDescriptors()).toBeLessThanOrEqual(before);
  });
});
