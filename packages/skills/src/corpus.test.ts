import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { readActivation } from "./activate.js";
import { checkSkills } from "./check.js";
import { SkillCode, TOLERATED_AT_LOAD } from "./codes.js";
import { discoverSkills } from "./discover.js";
import { DEFAULT_MAX_SKILL_BYTES } from "./limits.js";
import { mapLimit } from "./map-limit.js";
import { REPO_ROOT } from "./test-support/temp.js";
import type { Discovery, SkillDiagnostic, SkillRoot } from "./types.js";

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
    const { files, discovery } = await discoverCorpus();
    const loaded = new Set(discovery.skills.map((s) => s.file));
    const errors = discovery.diagnostics.filter((d) => d.severity === "error");
    const failed = new Set(errors.map((d) => d.path));
    expect(files.filter((f) => loaded.has(f) === failed.has(f))).toEqual([]);
    expect([...loaded, ...failed].filter((f) => !files.includes(f))).toEqual([]);

    expect(discovery.skills).toHaveLength(478);
    expect(failed.size).toBe(20);
    expect(countBy(errors)).toEqual({ NAME_MISMATCH: 16, NO_FRONTMATTER: 4 });
    expect(countBy(discovery.diagnostics.filter((d) => d.severity === "warning"))).toEqual({
      // Tolerated at load: each of these refused its skill before (17 skills now load).
      ALLOWED_TOOLS_LIST: 15,
      METADATA_VALUE: 2,
      SKILL_TOO_LARGE: 1,
      // More bare names collide now that more skills load.
      NAME_SHADOWED: 7,
      ROOT_INVALID: 5,
      UNKNOWN_FIELD: 57,
    });
    // allowed-tools is metadata: 27 skills carry it as a string, 14 as a YAML list that is read.
    expect(discovery.skills.filter((s) => s.allowedTools !== undefined)).toHaveLength(41);
    const listed = discovery.diagnostics.filter((d) => d.code === SkillCode.ALLOWED_TOOLS_LIST);
    // One list is on a skill that is still refused, for its NAME_MISMATCH.
    expect(listed.filter((d) => !loaded.has(d.path)).map((d) => errorCodesOf(d.path, errors))).toEqual([
      ["NAME_MISMATCH"],
    ]);
    for (const d of listed.filter((d) => loaded.has(d.path))) {
      const skill = discovery.skills.find((s) => s.file === d.path);
      expect(skill?.allowedTools?.length, d.path).toBeGreaterThan(0);
    }
    // A non-string metadata value is left out; the string values beside it stay.
    for (const d of discovery.diagnostics.filter((d) => d.code === SkillCode.METADATA_VALUE)) {
      const key = d.field?.slice("metadata.".length) ?? "";
      const metadata = discovery.skills.find((s) => s.file === d.path)?.metadata ?? {};
      expect(Object.hasOwn(metadata, key), d.field).toBe(false);
    }
  });

  it("is checked strictly: every mistake loading tolerated is an error of the same code", async () => {
    const { files, discovery } = await discoverCorpus();
    const tolerated = discovery.diagnostics.filter((d) => TOLERATED_AT_LOAD.has(d.code as SkillCode));
    const checked = await mapLimit(files, 8, (file) => checkSkills(dirname(file)));
    const diagnostics = checked.flatMap((r) => r.results.flatMap((result) => result.diagnostics));
    const strict = diagnostics.filter((d) => TOLERATED_AT_LOAD.has(d.code as SkillCode));
    expect(strict.every((d) => d.severity === "error")).toBe(true);
    expect(countBy(strict)).toEqual(countBy(tolerated));
    expect(strict.map((d) => `${d.code} ${d.path}`).sort()).toEqual(
      tolerated.map((d) => `${d.code} ${d.path}`).sort(),
    );
    // So the 17 skills that load only thanks to the tolerant reader all fail `pablo skills check`.
    const invalid = new Set(checked.flatMap((r) => r.results.filter((x) => !x.valid).map((x) => x.file)));
    const toleratedOnly = discovery.skills.filter((s) => tolerated.some((d) => d.path === s.file));
    expect(toleratedOnly).toHaveLength(17);
    expect(toleratedOnly.filter((s) => !invalid.has(s.file))).toEqual([]);
  });

  it("activates every loaded skill within max_skill_bytes: the oversized one is refused, or cut with a marker", async () => {
    const { discovery } = await discoverCorpus();
    const refused: string[] = [];
    let activated = 0;
    for (const skill of discovery.skills) {
      const read = await readActivation(skill);
      if ("activated" in read) activated++;
      else refused.push(...read.diagnostics.map((d) => `${d.code} ${skill.name}`));
    }
    expect(activated).toBe(477);
    expect(refused).toEqual(["SKILL_TOO_LARGE quality-playbook"]);

    const big = discovery.skills.find((s) => s.name === "quality-playbook");
    if (!big) throw new Error("quality-playbook was not discovered");
    const cut = await readActivation(big, { oversize: "truncate" });
    if (!("activated" in cut)) throw new Error(JSON.stringify(cut.diagnostics));
    expect(big.bytes).toBe(294426);
    const { keptBytes } = cut.activated.truncated ?? { keptBytes: -1 };
    expect(keptBytes).toBeGreaterThan(DEFAULT_MAX_SKILL_BYTES - 4);
    expect(keptBytes).toBeLessThanOrEqual(DEFAULT_MAX_SKILL_BYTES);
    expect(cut.activated.truncated).toEqual({ keptBytes, totalBytes: 294426 });
    expect(
      cut.activated.instructions.endsWith(`\n…[skill truncated at ${keptBytes} bytes of 294426]\n`),
    ).toBe(true);
    expect(cut.activated.instructionBytes).toBeLessThan(DEFAULT_MAX_SKILL_BYTES);
    expect(cut.warnings.map((d) => d.code)).toEqual(["SKILL_TRUNCATED"]);
  });
});

let corpusDiscovery: Promise<{ files: string[]; discovery: Discovery }> | undefined;

/** The corpus, discovered once for the whole file (one root per folder of packages). */
function discoverCorpus(): Promise<{ files: string[]; discovery: Discovery }> {
  corpusDiscovery ??= (async () => {
    if (!CORPUS) throw new Error(`no corpus at ${CANDIDATES.join(" or ")}`);
    const files = manifestFiles(CORPUS);
    expect(files).toHaveLength(498);
    expect(files.filter((f) => !existsSync(f))).toEqual([]);
    const roots = rootsFor(files);
    expect(roots).toHaveLength(30);
    return { files, discovery: await discoverSkills(roots) };
  })();
  return corpusDiscovery;
}

function errorCodesOf(path: string, errors: readonly SkillDiagnostic[]): string[] {
  return errors.filter((d) => d.path === path).map((d) => d.code);
}

function countBy(diagnostics: readonly { code: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of [...diagnostics].sort((a, b) => (a.code < b.code ? -1 : 1)))
    out[d.code] = (out[d.code] ?? 0) + 1;
  return out;
}
