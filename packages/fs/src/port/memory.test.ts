import { describe, expect, it } from "vitest";
import { code, data, fsHarness } from "../test-support/harness.js";
import { createMemoryFs } from "./memory.js";

describe("the virtual sandbox (memory port)", () => {
  it("keeps the same containment: special files, links and outside paths are refused", async () => {
    const io = createMemoryFs();
    io.writeFile("/ws/a.txt", "a\n");
    io.writeFile("/secret/s.txt", "S\n");
    io.mkfifo("/ws/pipe");
    io.symlink("/secret", "/ws/out");
    const h = await fsHarness({ workspace: "/ws", io });
    expect(code(await h.call("fs_read", { path: "pipe" }))).toBe("SPECIAL_FILE");
    expect(code(await h.call("fs_read", { path: "out/s.txt" }))).toBe("SYMLINK_REFUSED");
    expect(code(await h.call("fs_read", { path: "/secret/s.txt" }))).toBe("OUTSIDE_WORKSPACE");
    const follow = await fsHarness({ workspace: "/ws", io, options: { symlinks: "follow-inside" } });
    expect(code(await follow.call("fs_read", { path: "out/s.txt" }))).toBe("OUTSIDE_WORKSPACE");
    expect(data<{ entries: unknown[] }>(await h.call("fs_list", {})).entries).toEqual([
      { name: "a.txt", type: "file" },
      { name: "out", type: "symlink" },
      { name: "pipe", type: "fifo" },
    ]);
  });

  it("writes nothing to the disk: an atomic install happens inside the sandbox", async () => {
    const io = createMemoryFs();
    io.mkdirp("/ws");
    const h = await fsHarness({ workspace: "/ws", io });
    data(await h.call("fs_write", { path: "dir/new.txt", content: "n\n", expected_revision: null }));
    expect(Buffer.from(io.readFile("/ws/dir/new.txt") ?? []).toString()).toBe("n\n");
    expect(io.names("/ws/dir")).toEqual(["new.txt"]);
  });
});
