import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { code, fsHarness } from "./test-support/harness.js";
import { PORTS, portWorkspace } from "./test-support/ports.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Spellings that put a component (`.`, `..`, a name, an empty one) after the regular file README.md. */
const THROUGH_A_FILE = [
  "README.md/",
  "README.md//",
  "README.md/.",
  "README.md/./",
  "./README.md/.",
  "dir/../README.md/.",
  "README.md/x/..",
  "README.md/x/../",
  "README.md/x/y/../..",
  "README.md/x",
  "README.md/x/y.txt",
  "README.md/./x",
];

describe.each(PORTS)("a path through a regular file on the %s port", (kind) => {
  function tree() {
    const w = portWorkspace(kind);
    w.write("README.md", "readme\n");
    w.write("dir/inner.txt", "inner\n");
    return w;
  }

  it.each([
    ...THROUGH_A_FILE.map((path) => ({ path, absolute: false })),
    ...["README.md/.", "README.md/x/..", "README.md/"].map((path) => ({ path, absolute: true })),
  ])(
    "$path (absolute: $absolute) is INVALID_ARGUMENT for every tool, never the file",
    async ({ path: spelled, absolute }) => {
      const w = tree();
      const path = absolute ? `${w.ws}/${spelled}` : spelled;
      const h = await fsHarness({ workspace: w.ws, io: w.io });
      const results = {
        read: await h.call("fs_read", { path }),
        list: await h.call("fs_list", { path }),
        glob: await h.call("fs_glob", { path, pattern: "**" }),
        search: await h.call("fs_search", { path, query: "readme" }),
        write: await h.call("fs_write", { path, content: "x", expected_revision: sha256("readme\n") }),
        create: await h.call("fs_write", { path, content: "x", expected_revision: null }),
        edit: await h.call("fs_edit", {
          path,
          old_string: "readme",
          new_string: "x",
          expected_revision: sha256("readme\n"),
        }),
      };
      expect(
        Object.fromEntries(Object.entries(results).map(([tool, result]) => [tool, code(result)])),
      ).toEqual({
        read: "INVALID_ARGUMENT",
        list: "INVALID_ARGUMENT",
        glob: "INVALID_ARGUMENT",
        search: "INVALID_ARGUMENT",
        write: "INVALID_ARGUMENT",
        create: "INVALID_ARGUMENT",
        edit: "INVALID_ARGUMENT",
      });
      expect(JSON.stringify(results)).not.toContain('"content":"readme');
      expect(w.read("README.md")).toBe("readme\n");
    },
  );

  it("says which component is the file when more path follows it", async () => {
    const w = tree();
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    const result = await h.call("fs_list", { path: "README.md/x/.." });
    expect(!result.ok && result.error).toMatchObject({
      message: "README.md is a file, not a directory",
      details: { reason: "not-a-directory" },
    });
    const nested = await h.call("fs_read", { path: "README.md/x" });
    expect(!nested.ok && nested.error.message).toBe("README.md is a file, not a directory");
  });
});
