import { describe, expect, it } from "vitest";
import { code, data, fsHarness } from "../test-support/harness.js";
import { PORTS, portWorkspace } from "../test-support/ports.js";

interface Listing {
  entries: { name: string; type: string }[];
  total: number;
  offset: number;
  next_offset: number | null;
  end: boolean;
}

describe.each(PORTS)("fs.list on the %s port", (kind) => {
  it("lists direct children with their types in byte order of their names, never following links", async () => {
    const w = portWorkspace(kind);
    for (const name of ["b.txt", "B.txt", "a/inner.txt", "é.txt", "z.txt", "_x", "😀", "ab"])
      w.write(name, "x");
    w.symlink("a", "link");
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    const listing = data<Listing>(await h.call("fs_list", {}));
    expect(listing.entries).toEqual([
      { name: "B.txt", type: "file" },
      { name: "_x", type: "file" },
      { name: "a", type: "directory" },
      { name: "ab", type: "file" },
      { name: "b.txt", type: "file" },
      { name: "link", type: "symlink" },
      { name: "z.txt", type: "file" },
      { name: "é.txt", type: "file" },
      { name: "😀", type: "file" },
    ]);
    expect(listing).toMatchObject({ total: 9, offset: 0, next_offset: null, end: true });
  });

  it("paginates by offset and limit", async () => {
    const w = portWorkspace(kind);
    for (let i = 0; i < 7; i++) w.write(`d/f${i}`, "x");
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    const first = data<Listing>(await h.call("fs_list", { path: "d", limit: 3 }));
    expect(first.entries.map((e) => e.name)).toEqual(["f0", "f1", "f2"]);
    expect(first).toMatchObject({ next_offset: 3, end: false, total: 7 });
    const last = data<Listing>(await h.call("fs_list", { path: "d", offset: 6, limit: 3 }));
    expect(last.entries.map((e) => e.name)).toEqual(["f6"]);
    expect(last).toMatchObject({ next_offset: null, end: true });
  });

  it("refuses a file, a missing directory and a directory over the entry quota", async () => {
    const w = portWorkspace(kind);
    for (let i = 0; i < 5; i++) w.write(`d/f${i}`, "x");
    const h = await fsHarness({ workspace: w.ws, io: w.io, options: { quotas: { entries: 4 } } });
    expect(code(await h.call("fs_list", { path: "d/f0" }))).toBe("INVALID_ARGUMENT");
    expect(code(await h.call("fs_list", { path: "nope" }))).toBe("NOT_FOUND");
    expect(code(await h.call("fs_list", { path: "d" }))).toBe("LIMIT_EXCEEDED");
  });
});
