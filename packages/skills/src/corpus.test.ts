import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { readActivation } from "./activate.js";
import { discoverSkills } from "./discover.js";
import { REPO_ROOT } from "./test-support/temp.js";
import type { SkillRoot } from "./types.js";

/**
 * The real-world corpus: 498 SKILL.md files from public repositories. It is vendored in the repo
 * at corpora/skills and also shipped beside the repo at ../shared/corpora/skills; whichever is
 * present is used, and neither being present fails the suite instead of skipping it.
 */
const CANDIDATES = [join(REPO_ROOT, "corpora/skills"), join(REPO_ROOT, "../shared/corpora/skills")];
const CORPUS = CANDIDATES.find((dir) => existsSync(join(dir, "MANIFEST.tsv")));

function manifestFiles(corpus: string): string[] {
  const lines = readFileSync(join(corpus, "MANIFEST.tsv"), "utf8").trim().split("\n").slice(1);
  return lines.map((line) => {
    const [repo, , path] = line.split("\t");
    if (!repo || !path) throw new Error(`bad manifest line: ${line}`);
    return join(corpus, repo.replace("/", "__"), path);
  });
}

/** One root per folder that holds skill packages, so every file is a package of exactly one root. */
function rootsFor(files: readonly string[]): SkillRoot[] {
  const dirs = [...new Set(files.map((file) => dirname(dirname(file))))].sort();
  return dirs.map((dir, index) => ({ name: `r${index}`, dir }));
}

describe("the real-world corpus", () => {
  it("is present (the suite fails loudly instead of skipping it)", () => {
    expect(CORPUS, `no corpus at ${CANDIDATES.join(" or ")}`).toBeDefined();
  });

  it("yields a skill or an error diagnostic for every file, and never throws", async () => {
    if (!CORPUS) throw new Error(`no corpus at ${CANDIDATES.join(" or ")}`);
    const files = manifestFiles(CORPUS);
    expect(files).toHaveLength(498);
    expect(files.filter((f) => !existsSync(f))).toEqual([]);
    const roots = rootsFor(files);
    expect(roots).toHaveLength(30);

    const discovery = await discoverSkills(roots);
    const loaded = new Set(discovery.skills.map((s) => s.file));
    const errors = discovery.diagnostics.filter((d) => d.severity === "error");
    const failed = new Set(errors.map((d) => d.path));
    expect(files.filter((f) => loaded.has(f) === failed.has(f))).toEqual([]);
    expect([...loaded, ...failed].filter((f) => !files.includes(f))).toEqual([]);

    expect(discovery.skills).toHaveLength(461);
    expect(failed.size).toBe(37);
    expect(countBy(errors)).toEqual({
      ALLOWED_TOOLS_LIST: 15,
      METADATA_VALUE: 2,
      NAME_MISMATCH: 16,
      NO_FRONTMATTER: 4,
      SKILL_TOO_LARGE: 1,
    });
    expect(countBy(discovery.diagnostics.filter((d) => d.severity === "warning"))).toEqual({
      NAME_SHADOWED: 3,
      ROOT_INVALID: 5,
      UNKNOWN_FIELD: 57,
    });
    // allowed-tools, when it loads, is metadata: 27 skills carry it as a string.
    expect(discovery.skills.filter((s) => s.allowedTools !== undefined)).toHaveLength(27);

    // Activation reads every loaded skill in full and finds nothing discovery missed.
    let activated = 0;
    for (const skill of discovery.skills) {
      const read = await readActivation(skill);
      if ("activated" in read) activated++;
      else expect.fail(`${skill.file}: ${JSON.stringify(read.diagnostics)}`);
    }
    expect(activated).toBe(461);
  });
});

function countBy(diagnostics: readonly { code: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of [...diagnostics].sort((a, b) => (a.code < b.code ? -1 : 1)))
    out[d.code] = (out[d.code] ?? 0) + 1;
  return out;
}
