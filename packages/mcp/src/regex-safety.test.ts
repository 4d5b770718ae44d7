import { describe, expect, it } from "vitest";
import { patternProblem } from "./regex-safety.js";

describe("server-declared patterns", () => {
  it.each([
    "^[a-z]+$",
    "^[A-Z]{2,3}-\\d{4}$",
    "^(?:foo|bar)$",
    "^(?<year>\\d{4})-\\d{2}$",
    "^[a-z0-9]+(?:-[a-z]){0,3}$",
    "^\\w+@\\w+\\.com$",
  ])("accepts %s", (pattern) => {
    expect(patternProblem(pattern)).toBeUndefined();
  });

  it.each([
    ["^(a+)+$", "repeats a group"],
    ["^(a|aa)*$", "repeats a group"],
    ["^(?:\\d?)+$", "repeats a group"],
    ["(a)\\1", "backreference"],
    ["^(?=a)b$", "lookaround"],
    ["^a*b*c*$", "more than 2 unbounded"],
    ["[", "does not compile"],
    ["a".repeat(300), "longer than"],
  ])("refuses %s", (pattern, why) => {
    expect(patternProblem(pattern)).toContain(why);
  });

  it("keeps accepted patterns fast on hostile input within the length cap", () => {
    const input = `${"a".repeat(1024)}!`;
    for (const pattern of ["^[a-z]+$", "^\\w*a*$", "^(?:ab){0,5}a+$"]) {
      expect(patternProblem(pattern)).toBeUndefined();
      const started = performance.now();
      new RegExp(pattern, "u").test(input);
      expect(performance.now() - started).toBeLessThan(200);
    }
  });
});
