import { describe, expect, it } from "vitest";
import { code, data, fsHarness } from "../test-support/harness.js";
import { PORTS, portWorkspace } from "../test-support/ports.js";
import { MAX_BRACE_ALTERNATIVES, refuseGlobPattern } from "./glob-pattern.js";

const reasonOf = (pattern: string) => refuseGlobPattern(pattern)?.error.details?.["reason"] ?? "ok";

describe("fs.glob patterns that mean .. are refused, however they are spelled", () => {
  it.each([
    ["..", ".."],
    ["../x", ".."],
    ["src/..", ".."],
    ["src/../x/*", ".."],
    ["**/../*", ".."],
    ["{src,../x}/*", ".."],
    ["{src,..}/*", ".."],
    ["{..}/x", ".."],
    ["@(a|..)/x", ".."],
    ["!../x", ".."],
    ["[.][.]/x", "[.][.]"],
    [".[.]/x", ".[.]"],
    ["[.]./x", "[.]."],
    ["\\.\\./x", "\\.\\."],
    ["src/[.][.]", "[.][.]"],
    ["{src,[.][.]/x}/*", "[.][.]"],
    ["{a,{b,.[.]}}/c", ".[.]"],
    ["{.,x}./y", ".."],
    ["+(.)/x", "+(.)"],
    ["[[:punct:]][[:punct:]]/x", "[[:punct:]][[:punct:]]"],
  ])("%s is INVALID_ARGUMENT naming the segment %s", (pattern, segment) => {
    const refused = refuseGlobPattern(pattern);
    expect(refused?.error).toMatchObject({
      code: "INVALID_ARGUMENT",
      details: { pattern, reason: "parent-segment", segment },
    });
    expect(refused?.error.message).toContain('".."');
  });

  it.each([
    "**/*.ts",
    "src/{1..3}.ts",
    "a..b/*",
    "..x/*",
    "x../*",
    ".../*",
    ".*/config",
    ".?/x",
    "*/x",
    "!(x)/y",
    "[!a][!a]/x",
    "./src/*",
    "{src,lib}/**/*.{ts,md}",
  ])("%s is an ordinary pattern", (pattern) => {
    expect(reasonOf(pattern)).toBe("ok");
  });

  it("refuses absolute patterns and absolute brace alternatives", () => {
    expect(reasonOf("/etc/*")).toBe("absolute");
    expect(reasonOf("{/etc,src}/*")).toBe("absolute");
    expect(reasonOf("!/etc/*")).toBe("absolute");
  });

  it(`refuses a pattern with more than ${MAX_BRACE_ALTERNATIVES} brace alternatives instead of expanding it`, () => {
    expect(reasonOf("{a,b}".repeat(10))).toBe("ok");
    expect(reasonOf("{a,b}".repeat(11))).toBe("too-many-alternatives");
  });
});

describe.each(PORTS)("fs.glob refuses .. patterns through the kernel on the %s port", (kind) => {
  it("answers INVALID_ARGUMENT before walking anything, and still finds ordinary dot names", async () => {
    const w = portWorkspace(kind);
    w.write("src/a.ts", "x");
    w.write(".config/b.ts", "x");
    const h = await fsHarness({ workspace: w.ws, io: w.io });
    for (const pattern of ["{src,../x}/*", "[.][.]/x", ".[.]/x", "../*"]) {
      const result = await h.call("fs_glob", { pattern });
      expect(code(result), pattern).toBe("INVALID_ARGUMENT");
      expect(!result.ok && result.error.details?.["reason"]).toBe("parent-segment");
    }
    expect(data(await h.call("fs_glob", { pattern: ".*/*.ts", dot: true }))).toMatchObject({
      files: [".config/b.ts"],
    });
    expect(data(await h.call("fs_glob", { pattern: "{src,lib}/*.ts" }))).toMatchObject({
      files: ["src/a.ts"],
    });
  });
});
