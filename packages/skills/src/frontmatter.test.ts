import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseFrontmatter, yamlOnlyMatter } from "./frontmatter.js";
import { FIXTURES, useTempDir } from "./test-support/temp.js";

const JS_FIXTURE = join(FIXTURES, "failures/js-frontmatter/js-frontmatter/SKILL.md");
const jsFixture = readFileSync(JS_FIXTURE, "utf8");

describe("only YAML frontmatter is ever parsed", () => {
  let marker: string;
  beforeEach(() => {
    marker = join(useTempDir(), "evaluated");
    process.env["PABLO_SKILLS_JS_MARKER"] = marker;
  });
  afterEach(() => {
    delete process.env["PABLO_SKILLS_JS_MARKER"];
  });

  it("uses a fixture that really runs code under gray-matter's default engines", () => {
    // The control: without Pablo's configuration, gray-matter evaluates the fixture.
    const file = matter(jsFixture, { language: "yaml" });
    expect(existsSync(marker)).toBe(true);
    expect(file.data["name"]).toBe("js-frontmatter");
  });

  it("refuses ---js frontmatter without evaluating it", () => {
    const parsed = parseFrontmatter(jsFixture);
    expect(parsed).toMatchObject({ ok: false, code: "FRONTMATTER_LANGUAGE", line: 1 });
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses every spelling of a non-YAML language, even ones gray-matter resolves by alias", () => {
    const payload = `{ name: (require("node:fs").writeFileSync(process.env.PABLO_SKILLS_JS_MARKER, "x"), "a"), description: "d" }`;
    for (const language of [
      "js",
      "JS",
      "javascript",
      " js",
      "Js ",
      "json",
      "coffee",
      "constructor",
      "toString",
      "toml",
    ]) {
      const parsed = parseFrontmatter(`---${language}\n${payload}\n---\nbody\n`);
      expect(parsed, language).toMatchObject({ ok: false, code: "FRONTMATTER_LANGUAGE" });
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("keeps gray-matter itself from evaluating code when the language check is bypassed", () => {
    for (const language of ["js", "JS", "javascript", "JavaScript"]) {
      expect(() => yamlOnlyMatter(jsFixture.replace("---js", `---${language}`)), language).toThrow(
        /not accepted/,
      );
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("accepts an explicit ---yaml or ---yml opening line", () => {
    for (const language of ["yaml", "yml", "YAML"]) {
      const parsed = parseFrontmatter(`---${language}\nname: a\ndescription: d\n---\nbody\n`);
      expect(parsed, language).toMatchObject({
        ok: true,
        data: { name: "a", description: "d" },
        body: "body\n",
      });
    }
  });
});

describe("YAML is bounded", () => {
  it("fails a billion-laughs alias bomb fast instead of expanding it", () => {
    const text = readFileSync(join(FIXTURES, "failures/yaml-alias-bomb/yaml-alias-bomb/SKILL.md"), "utf8");
    const started = performance.now();
    const parsed = parseFrontmatter(text);
    expect(parsed).toMatchObject({ ok: false, code: "YAML_ALIAS_LIMIT" });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("still reads a frontmatter with a few small aliases", () => {
    const parsed = parseFrontmatter(
      "---\nname: a\ndescription: &d Shared text.\nmetadata:\n  summary: *d\n---\n",
    );
    expect(parsed).toMatchObject({ ok: true, data: { metadata: { summary: "Shared text." } } });
  });

  it("refuses tags outside the core schema instead of resolving them", () => {
    for (const value of [
      '!!js/function "function () {}"',
      "!!binary aGVsbG8=",
      "!!set {a}",
      "!custom x",
      "!!timestamp 2001-12-14",
    ]) {
      const parsed = parseFrontmatter(`---\nname: a\ndescription: ${value}\n---\n`);
      expect(parsed, value).toMatchObject({ ok: false, code: "YAML_TAG", line: 3 });
    }
  });

  it("refuses duplicate keys instead of keeping one silently", () => {
    expect(parseFrontmatter("---\nname: a\nname: b\ndescription: d\n---\n")).toMatchObject({
      ok: false,
      code: "INVALID_YAML",
      line: 3,
    });
  });

  it("reads a __proto__ key as data without touching any prototype", () => {
    const parsed = parseFrontmatter("---\n__proto__:\n  polluted: yes\nname: a\ndescription: d\n---\n");
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(Object.keys(parsed.data)).toEqual(["__proto__", "name", "description"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("reads YAML 1.2 core types: yes, dates and 0x are not coerced into booleans and dates", () => {
    const parsed = parseFrontmatter("---\nname: a\ndescription: yes\nlicense: 2001-12-14\n---\n");
    expect(parsed).toMatchObject({ ok: true, data: { description: "yes", license: "2001-12-14" } });
  });
});

describe("delimiters", () => {
  it("handles CRLF line ends and reports field lines in the file", () => {
    const parsed = parseFrontmatter("---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n");
    expect(parsed).toMatchObject({
      ok: true,
      data: { name: "a", description: "d" },
      body: "body\r\n",
      bodyLine: 5,
    });
    if (parsed.ok)
      expect([...parsed.fields].map(([k, v]) => [k, v.line])).toEqual([
        ["name", 2],
        ["description", 3],
      ]);
  });

  it("requires the closing line to be exactly ---", () => {
    expect(parseFrontmatter("---\nname: a\n---more\nbody\n")).toMatchObject({
      ok: false,
      code: "FRONTMATTER_NOT_CLOSED",
      line: 3,
    });
  });

  it("treats a first line of four dashes as no frontmatter, as gray-matter does", () => {
    expect(parseFrontmatter("----\nname: a\n----\n")).toMatchObject({ ok: false, code: "NO_FRONTMATTER" });
  });

  it("reads an empty or comment-only frontmatter as no fields", () => {
    expect(parseFrontmatter("---\n# nothing\n---\nbody\n")).toMatchObject({
      ok: true,
      data: {},
      body: "body\n",
    });
    expect(parseFrontmatter("---\n---\nbody\n")).toMatchObject({ ok: true, data: {} });
  });

  it("refuses a frontmatter that is a list or a scalar", () => {
    expect(parseFrontmatter("---\n- a\n---\n")).toMatchObject({ ok: false, code: "FRONTMATTER_NOT_MAPPING" });
    expect(parseFrontmatter("---\njust text\n---\n")).toMatchObject({
      ok: false,
      code: "FRONTMATTER_NOT_MAPPING",
    });
  });
});
