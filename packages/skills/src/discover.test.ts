import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { activateSkills } from "./activate.js";
import { checkSkills } from "./check.js";
import { discoverSkills } from "./discover.js";
import { FIXTURES, skillText, useTempDir, writeSkill } from "./test-support/temp.js";

const valid = join(FIXTURES, "valid");

describe("discovery scans only configured roots", () => {
  const home = process.env["HOME"];
  afterEach(() => {
    process.env["HOME"] = home;
  });

  it("finds nothing without roots, even with skills in the usual home locations", async () => {
    const fakeHome = useTempDir();
    for (const dir of [".claude/skills", ".pablo/skills", ".agents/skills", ".codex/skills"]) {
      writeSkill(join(fakeHome, dir), "planted", skillText("planted"));
    }
    process.env["HOME"] = fakeHome;
    expect(await discoverSkills([])).toEqual({ skills: [], diagnostics: [] });
  });

  it("reads the child folders of each root, in root order then name order, with qualified ids", async () => {
    const discovery = await discoverSkills([
      { name: "team", dir: join(valid, "team") },
      { name: "shared", dir: join(valid, "shared") },
    ]);
    expect(discovery.skills.map((s) => s.id)).toEqual([
      "team/evidence-review",
      "team/release-notes",
      "shared/evidence-review",
    ]);
    expect(discovery.skills[0]).toMatchObject({
      root: "team",
      name: "evidence-review",
      description: "Review cited evidence and retain exact source references.",
      dir: join(valid, "team/evidence-review"),
      file: join(valid, "team/evidence-review/SKILL.md"),
      license: "Apache-2.0",
      metadata: { owner: "team", version: "1.0" },
    });
    expect(discovery.skills[1]?.allowedTools).toEqual(["fs.read", "fs.search", "Bash(git log:*)"]);
  });

  it("resolves a bare-name collision to the first root, with a warning on the other", async () => {
    const forward = await discoverSkills([
      { name: "team", dir: join(valid, "team") },
      { name: "shared", dir: join(valid, "shared") },
    ]);
    expect(forward.diagnostics).toEqual([
      expect.objectContaining({
        severity: "warning",
        code: "NAME_SHADOWED",
        skill: "shared/evidence-review",
      }),
    ]);
    const reversed = await discoverSkills([
      { name: "shared", dir: join(valid, "shared") },
      { name: "team", dir: join(valid, "team") },
    ]);
    expect(reversed.diagnostics).toEqual([
      expect.objectContaining({ code: "NAME_SHADOWED", skill: "team/evidence-review" }),
    ]);
    const bare = await activateSkills(["evidence-review"], reversed);
    expect(bare.context.map((s) => s.id)).toEqual(["shared/evidence-review"]);
  });

  it("reports bad roots as diagnostics and still reads the good ones", async () => {
    const tmp = useTempDir();
    writeFileSync(join(tmp, "file"), "");
    const discovery = await discoverSkills([
      { name: "missing", dir: join(tmp, "nope") },
      { name: "file", dir: join(tmp, "file") },
      { name: "relative", dir: "skills" },
      { name: "bad/name", dir: tmp },
      { name: "team", dir: join(valid, "team") },
      { name: "team", dir: join(valid, "shared") },
    ]);
    expect(discovery.skills.map((s) => s.id)).toEqual(["team/evidence-review", "team/release-notes"]);
    expect(discovery.diagnostics.map((d) => [d.root, d.code])).toEqual([
      ["missing", "ROOT_MISSING"],
      ["file", "ROOT_INVALID"],
      ["relative", "ROOT_INVALID"],
      ["bad/name", "ROOT_INVALID"],
      ["team", "ROOT_INVALID"],
    ]);
  });

  it("skips dot-folders, plain files and folders without SKILL.md, and warns about a SKILL.md in the root itself", async () => {
    const root = useTempDir();
    writeSkill(root, ".hidden", skillText(".hidden"));
    writeSkill(root, "ok", skillText("ok"));
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "README.md"), "# skills\n");
    writeFileSync(join(root, "SKILL.md"), skillText("root"));
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    expect(discovery.skills.map((s) => s.id)).toEqual(["r/ok"]);
    expect(discovery.diagnostics).toEqual([
      expect.objectContaining({ severity: "warning", code: "ROOT_INVALID", path: join(root, "SKILL.md") }),
    ]);
  });

  it("refuses a root with more entries than the bound, whole", async () => {
    const root = useTempDir();
    for (const n of [1, 2, 3]) writeSkill(root, `s${n}`, skillText(`s${n}`));
    const discovery = await discoverSkills([{ name: "r", dir: root }], { maxEntriesPerRoot: 2 });
    expect(discovery.skills).toEqual([]);
    expect(discovery.diagnostics.map((d) => d.code)).toEqual(["TOO_MANY_ENTRIES"]);
  });

  it("never loads a skill under a name other than the one it declares", async () => {
    const root = useTempDir();
    writeSkill(root, "folder-name", skillText("declared-name"));
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    expect(discovery.skills).toEqual([]);
    expect(discovery.diagnostics).toEqual([
      expect.objectContaining({ code: "NAME_MISMATCH", skill: "r/folder-name" }),
    ]);
  });
});

describe("discovery reads frontmatter only, installs nothing and runs nothing", () => {
  it("does not read past the frontmatter: a body that is not UTF-8 is found only when activated", async () => {
    const root = join(FIXTURES, "failures/invalid-utf8");
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    expect(discovery).toMatchObject({ skills: [{ id: "r/invalid-utf8" }], diagnostics: [] });
    const activation = await activateSkills(["r/invalid-utf8"], discovery);
    expect(activation.context).toEqual([]);
    expect(activation.diagnostics.map((d) => [d.code, d.line])).toEqual([["INVALID_UTF8", 5]]);
  });

  it("runs no script and no install hook shipped with a skill, through discovery, activation and check", async () => {
    const marker = join(useTempDir(), "ran");
    process.env["PABLO_SKILLS_SCRIPT_MARKER"] = marker;
    try {
      const discovery = await discoverSkills([{ name: "team", dir: join(valid, "team") }]);
      await activateSkills(["team/evidence-review"], discovery);
      await checkSkills(join(valid, "team"));
      expect(existsSync(join(valid, "team/evidence-review/scripts/collect.sh"))).toBe(true);
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(join(valid, "team/evidence-review/node_modules"))).toBe(false);
    } finally {
      delete process.env["PABLO_SKILLS_SCRIPT_MARKER"];
    }
  });
});
