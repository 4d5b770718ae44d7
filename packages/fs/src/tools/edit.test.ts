import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { code, data, fsHarness } from "../test-support/harness.js";
import { PORTS, portWorkspace } from "../test-support/ports.js";

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

describe.each(PORTS)("fs.edit on the %s port", (kind) => {
  async function setup(files: Record<string, string | Buffer>, options = {}) {
    const w = portWorkspace(kind);
    for (const [path, content] of Object.entries(files)) w.write(path, content);
    return { w, h: await fsHarness({ workspace: w.ws, io: w.io, options }) };
  }

  it("replaces the one exact match at the given revision", async () => {
    const { w, h } = await setup({ "a.ts": "const a = 1;\nconst b = 2;\n" });
    const result = await h.call("fs_edit", {
      path: "a.ts",
      old_string: "b = 2",
      new_string: "b = 3",
      expected_revision: sha256("const a = 1;\nconst b = 2;\n"),
    });
    expect(result.committed).toBe(true);
    expect(data(result)).toMatchObject({ path: "a.ts", revision: sha256("const a = 1;\nconst b = 3;\n") });
    expect(w.read("a.ts")).toBe("const a = 1;\nconst b = 3;\n");
  });

  it("fails with the match count and a re-read instruction when there are zero or several matches", async () => {
    const text = "x = 1\nx = 1\n";
    const { w, h } = await setup({ "a.txt": text, "b.txt": text });
    const none = await h.call("fs_edit", {
      path: "a.txt",
      old_string: "y",
      new_string: "z",
      expected_revision: sha256(text),
    });
    expect(code(none)).toBe("TOOL_FAILED");
    expect(!none.ok && none.error.details).toMatchObject({
      matches: 0,
      mutationFailureKind: "match",
      mutationFailureAttempt: 1,
    });
    expect(!none.ok && none.error.message).toMatch(/fs\.read/);
    const several = await h.call("fs_edit", {
      path: "b.txt",
      old_string: "x = 1",
      new_string: "x = 2",
      expected_revision: sha256(text),
    });
    expect(!several.ok && several.error.details?.["matches"]).toBe(2);
    expect(!several.ok && several.error.terminate).toBeUndefined();
    expect(w.read("a.txt")).toBe(text);
    expect(w.read("b.txt")).toBe(text);
  });

  it("terminates on the second failed edit of the same path within one user prompt, and forgets at the next", async () => {
    const text = "alpha\n";
    const { h } = await setup({ "a.txt": text });
    const attempt = () =>
      h.call("fs_edit", {
        path: "a.txt",
        old_string: "beta",
        new_string: "gamma",
        expected_revision: sha256(text),
      });
    const first = await attempt();
    expect(!first.ok && first.error.terminate).toBeUndefined();
    const second = await attempt();
    expect(!second.ok && second.error.terminate).toBe(true);
    expect(!second.ok && second.error.details?.["mutationFailureAttempt"]).toBe(2);
    expect(h.audit.records.at(-1)?.notes).toMatchObject({ mutationFailureAttempt: 2, terminate: true });
    h.session.beginPrompt();
    const fresh = await attempt();
    expect(!fresh.ok && fresh.error.terminate).toBeUndefined();
  });

  it("counts a stale revision as a failed edit and keeps paths apart", async () => {
    const { h } = await setup({ "a.txt": "a\n", "b.txt": "b\n" });
    const stale = await h.call("fs_edit", {
      path: "a.txt",
      old_string: "a",
      new_string: "A",
      expected_revision: sha256("old\n"),
    });
    expect(code(stale)).toBe("REVISION_CONFLICT");
    expect(!stale.ok && stale.error.details).toMatchObject({
      mutationFailureKind: "revision",
      current_revision: sha256("a\n"),
    });
    const other = await h.call("fs_edit", {
      path: "b.txt",
      old_string: "zz",
      new_string: "y",
      expected_revision: sha256("b\n"),
    });
    expect(!other.ok && other.error.terminate).toBeUndefined();
    const again = await h.call("fs_edit", {
      path: "a.txt",
      old_string: "zz",
      new_string: "y",
      expected_revision: sha256("a\n"),
    });
    expect(!again.ok && again.error.terminate).toBe(true);
  });

  it("refuses identical strings, a missing revision, missing files and invalid UTF-8 without counting them", async () => {
    const bad = Buffer.from([0x61, 0xff, 0x0a]);
    const { h } = await setup({ "a.txt": "a\n", "bad.txt": bad });
    expect(
      code(
        await h.call("fs_edit", {
          path: "a.txt",
          old_string: "a",
          new_string: "a",
          expected_revision: sha256("a\n"),
        }),
      ),
    ).toBe("INVALID_ARGUMENT");
    expect(code(await h.call("fs_edit", { path: "a.txt", old_string: "a", new_string: "b" }))).toBe(
      "INVALID_ARGUMENT",
    );
    expect(
      code(
        await h.call("fs_edit", {
          path: "nope.txt",
          old_string: "a",
          new_string: "b",
          expected_revision: sha256("a\n"),
        }),
      ),
    ).toBe("NOT_FOUND");
    const utf8 = await h.call("fs_edit", {
      path: "bad.txt",
      old_string: "a",
      new_string: "b",
      expected_revision: sha256(bad),
    });
    expect(code(utf8)).toBe("INVALID_UTF8");
    const last = await h.call("fs_edit", {
      path: "bad.txt",
      old_string: "a",
      new_string: "b",
      expected_revision: sha256(bad),
    });
    expect(!last.ok && last.error.terminate).toBeUndefined();
  });

  it('with revisions: "tracked", edits a file read in this session without naming the revision', async () => {
    const { w, h } = await setup({ "a.txt": "one\n" }, { revisions: "tracked" });
    expect(code(await h.call("fs_edit", { path: "a.txt", old_string: "one", new_string: "two" }))).toBe(
      "REVISION_CONFLICT",
    );
    data(await h.call("fs_read", { path: "a.txt" }));
    data(await h.call("fs_edit", { path: "a.txt", old_string: "one", new_string: "two" }));
    expect(w.read("a.txt")).toBe("two\n");
  });

  it("asks for the revision fs.read returned when it is missing, never for null, which fs.edit rejects", async () => {
    const { h } = await setup({ "a.txt": "a\n" });
    const missing = await h.call("fs_edit", { path: "a.txt", old_string: "a", new_string: "b" });
    expect(!missing.ok && missing.error.message).toBe(
      "expected_revision is required: pass the revision fs.read returned for this file",
    );
    // What the message suggests is accepted; null is not (the schema has no null for fs.edit).
    expect(
      code(
        await h.call("fs_edit", { path: "a.txt", old_string: "a", new_string: "b", expected_revision: null }),
      ),
    ).toBe("INVALID_ARGUMENT");
    const read = data<{ revision: string }>(await h.call("fs_read", { path: "a.txt" }));
    data(
      await h.call("fs_edit", {
        path: "a.txt",
        old_string: "a",
        new_string: "b",
        expected_revision: read.revision,
      }),
    );
    // fs.write keeps offering null, which it accepts.
    const write = await h.call("fs_write", { path: "new.txt", content: "x" });
    expect(!write.ok && write.error.message).toContain("null to create a new file");
  });
});
