import { describe, expect, it } from "vitest";
import { cutUtf8 } from "./bounded-text.js";
import { parsePagePath, urlPathOf } from "./page-path.js";

const codeOf = (text: string) => {
  const parsed = parsePagePath(text);
  return "ok" in parsed ? parsed.error.code : "ok";
};

describe("page paths", () => {
  it("splits workspace-relative paths and marks directories", () => {
    expect(parsePagePath("site/index.html")).toEqual({
      components: ["site", "index.html"],
      directory: false,
    });
    expect(parsePagePath("./site//docs/")).toEqual({ components: ["site", "docs"], directory: true });
    expect(parsePagePath(".")).toEqual({ components: [], directory: true });
  });

  it("refuses absolute paths and escapes as outside the workspace, other '..' and NUL as invalid", () => {
    expect(codeOf("/etc/passwd")).toBe("OUTSIDE_WORKSPACE");
    expect(codeOf("../x.html")).toBe("OUTSIDE_WORKSPACE");
    expect(codeOf("./../x.html")).toBe("OUTSIDE_WORKSPACE");
    expect(codeOf("a/../b.html")).toBe("INVALID_ARGUMENT");
    expect(codeOf("a\0.html")).toBe("INVALID_ARGUMENT");
    expect(codeOf(`${"a".repeat(256)}.html`)).toBe("INVALID_ARGUMENT");
  });

  it("percent-encodes each component of the URL, so '?' and '#' stay part of a name", () => {
    expect(urlPathOf({ components: ["a b", "q?.html"], directory: false })).toBe("/a%20b/q%3F.html");
    expect(urlPathOf({ components: ["docs"], directory: true })).toBe("/docs/");
    expect(urlPathOf({ components: [], directory: true })).toBe("/");
  });
});

describe("cutUtf8", () => {
  it("cuts at a byte bound without splitting a character", () => {
    expect(cutUtf8("abc", 3)).toEqual({ text: "abc", truncated: false });
    expect(cutUtf8("aé", 2)).toEqual({ text: "a", truncated: true });
    expect(cutUtf8("a😀b", 4)).toEqual({ text: "a", truncated: true });
    expect(cutUtf8("a😀b", 5)).toEqual({ text: "a😀", truncated: true });
  });
});
