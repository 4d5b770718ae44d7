import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileGlobPattern } from "./glob-pattern.js";

function matches(pattern: string, path: string, dot = false): boolean {
  const matcher = compileGlobPattern(pattern, { dot });
  if (typeof matcher !== "function") throw new Error(`refused: ${matcher.error.message}`);
  return matcher(path);
}

const reasonOf = (pattern: string) => {
  const compiled = compileGlobPattern(pattern, { dot: true });
  return typeof compiled === "function" ? "ok" : compiled.error.details?.["reason"];
};

describe("the glob matcher", () => {
  it.each([
    ["*.ts", "a.ts", true],
    ["*.ts", "a/b.ts", false],
    ["a*b", "ab", true],
    ["?.ts", "a.ts", true],
    ["?.ts", "ab.ts", false],
    ["[abc].ts", "b.ts", true],
    ["[a-c].ts", "d.ts", false],
    ["[!a].ts", "b.ts", true],
    ["[^a].ts", "a.ts", false],
    ["[[:digit:]]x", "7x", true],
    ["[]a]", "]", true],
    ["\\*", "*", true],
    ["\\*", "a", false],
    ["**", "a/b/c", true],
    ["**/x", "x", true],
    ["**/x", "a/b/x", true],
    ["a/**", "a", true],
    ["a/**", "a/b/c", true],
    ["a/**/b", "a/b", true],
    ["a/**/b", "a/x/y/b", true],
    ["a**b", "a/b", false],
    ["{a,b}.ts", "b.ts", true],
    ["{a,{b,c}}", "c", true],
    ["{src,lib}/**/*.{ts,md}", "lib/x/y.md", true],
    ["{a/b,c}", "a/b", true],
    ["{1..12}.log", "11.log", true],
    ["{1..12}.log", "13.log", false],
    ["{a..c}", "b", true],
    ["{a}", "{a}", true],
    ["@(a|b)x", "bx", true],
    ["?(a)x", "x", true],
    ["*(ab)", "abab", true],
    ["+(ab)", "ababa", false],
    ["!*.ts", "a.js", true],
    ["!*.ts", "a.ts", false],
    ["$^+.", "$^+.", true],
    ["./src/*", "src/a", true],
  ])("%s against %s is %s", (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected);
  });

  it("lets wildcards match dot names only when asked, while a literal leading dot always does", () => {
    expect(matches("*", ".git")).toBe(false);
    expect(matches("*.ts", ".ts")).toBe(false);
    expect(matches("?x", ".x")).toBe(false);
    expect(matches("[!a]x", ".x")).toBe(false);
    expect(matches("**/*.ts", ".hidden/e.ts")).toBe(false);
    expect(matches("a/**", "a/.b/c")).toBe(false);
    expect(matches(".*", ".git")).toBe(true);
    expect(matches(".hidden/*.ts", ".hidden/e.ts")).toBe(true);
    expect(matches("{.a,b}", ".a")).toBe(true);
    expect(matches("*", ".git", true)).toBe(true);
    expect(matches("**/*.ts", ".hidden/e.ts", true)).toBe(true);
  });

  it("never matches the empty name", () => {
    expect(matches("*", "", true)).toBe(false);
    expect(matches("!x", "", true)).toBe(false);
  });

  it("refuses negated extglobs, unclosed groups and huge ranges as INVALID_ARGUMENT with a reason", () => {
    const refused = compileGlobPattern("!(x)/y", { dot: false });
    expect(typeof refused !== "function" && refused.error).toMatchObject({
      code: "INVALID_ARGUMENT",
      details: { pattern: "!(x)/y", reason: "negated-extglob" },
    });
    expect(reasonOf("a/!(*.test).ts")).toBe("negated-extglob");
    expect(reasonOf("{a,@(b})")).toBe("unbalanced");
    expect(reasonOf("{1..5000}")).toBe("too-many-alternatives");
    expect(reasonOf("[z-a]")).toBe("invalid-syntax");
    expect(reasonOf("!!x")).toBe("ok");
  });

  it("takes time linear in the name where a backtracking regex explodes", () => {
    expect(matches("*a*a*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(5000), true)).toBe(false);
    expect(matches("+(+(+(a)))b", "a".repeat(5000), true)).toBe(false);
  });
});

// Small patterns over a tiny alphabet, short enough that picomatch's backtracking stays cheap.
// `**` only as a leading segment, no empty segments, and no `?` or `*` just after `)`, which
// picomatch reads as a regex quantifier, nor a final `.*`, which picomatch wants non-empty: it
// has quirks past those.
const atom = fc.constantFrom("a", "b", ".", "*", "?", "[ab]", "{a,b}", "@(a|b.)", "/");
const wellFormed = (pattern: string) =>
  !/^\/|\/$|\/\/|\)[?*]|\.\*$|\*\*/.test(pattern.replace(/^\*\*\//, ""));
const patterns = fc
  .tuple(fc.constantFrom("", "**/"), fc.array(atom, { minLength: 1, maxLength: 5 }))
  .map(([globstar, atoms]) => globstar + atoms.join(""))
  .filter(wellFormed);
const segment = fc.stringMatching(/^[ab.]{1,4}$/).filter((s) => s !== "." && s !== "..");
const paths = fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join("/"));

describe("the glob matcher agrees with picomatch where picomatch is safe", () => {
  it("with dot names allowed", () => {
    fc.assert(
      fc.property(patterns, paths, (pattern, path) => {
        expect(matches(pattern, path, true), `${pattern} ${path}`).toBe(
          picomatch(pattern, { dot: true })(path),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("without dot names, for patterns without groups", () => {
    const plain = fc
      .tuple(
        fc.constantFrom("", "**/"),
        fc.array(fc.constantFrom("a", ".", "*", "?", "/"), { minLength: 1, maxLength: 5 }),
      )
      .map(([globstar, atoms]) => globstar + atoms.join(""))
      .filter(wellFormed);
    fc.assert(
      fc.property(plain, paths, (pattern, path) => {
        expect(matches(pattern, path), `${pattern} ${path}`).toBe(picomatch(pattern)(path));
      }),
      { numRuns: 2000 },
    );
  });
});
