import { describe, expect, it } from "vitest";
import { data, fsHarness } from "../test-support/harness.js";
import { portWorkspace } from "../test-support/ports.js";

// A backtracking regex engine takes minutes on this pair; a hang fails by the default test timeout.
const NAME = "a".repeat(40);
const PATTERN = "*a*a*a*a*a*a*a*a*a*a*a*a*b";

describe("a glob that makes backtracking regexes explode answers promptly on a real directory", () => {
  it("fs.glob finds no match for the pattern among names of forty a's", async () => {
    const w = portWorkspace("local");
    w.write(NAME, "needle");
    w.write(`dir/${NAME}`, "needle");
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    expect(data(await h.call("fs_glob", { pattern: PATTERN }))).toMatchObject({ files: [], complete: true });
    expect(data(await h.call("fs_glob", { pattern: `**/${PATTERN}` }))).toMatchObject({ files: [] });
  });

  it("fs.search with the pattern as include excludes the file instead of hanging", async () => {
    const w = portWorkspace("local");
    w.write(NAME, "needle");
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    const found = data(await h.call("fs_search", { query: "needle", include: PATTERN }));
    expect(found).toMatchObject({ matches: [], skipped: { excluded: 1 } });
  });
});
