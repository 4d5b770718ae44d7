import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { activateSkills } from "./activate.js";
import { checkSkills } from "./check.js";
import { discoverSkills } from "./discover.js";
import { formatCheckReport, formatSkillContext, formatSkillDetail, formatSkillList } from "./format.js";
import { FIXTURES, useTempDir, writeSkill } from "./test-support/temp.js";

const relativeTo = FIXTURES;

describe("human output for the CLI", () => {
  it("lists skills with their metadata, then diagnostics with fixes, then counts", async () => {
    const discovery = await discoverSkills([
      { name: "team", dir: join(FIXTURES, "valid/team") },
      { name: "shared", dir: join(FIXTURES, "valid/shared") },
      { name: "broken", dir: join(FIXTURES, "failures/upper-case") },
    ]);
    expect(formatSkillList(discovery, { relativeTo })).toMatchInlineSnapshot(`
      "team/evidence-review  Review cited evidence and retain exact source references.
          valid/team/evidence-review/SKILL.md
      team/release-notes  Draft release notes from merged changes. Use when preparing a release.
          valid/team/release-notes/SKILL.md
          allowed-tools (metadata, grants nothing): fs.read fs.search Bash(git log:*)
      shared/evidence-review  A second evidence-review in another root; the first root wins bare-name lookups.
          valid/shared/evidence-review/SKILL.md

      failures/upper-case/Evidence-Review/SKILL.md:2: error NAME_UPPERCASE name: \`name\` "Evidence-Review" has upper-case letters
          fix: use lower case: \`name: evidence-review\` (and rename the folder to match)
      valid/shared/evidence-review/SKILL.md: warning NAME_SHADOWED the bare name evidence-review resolves to team/evidence-review (root team comes first); this skill is reachable only as shared/evidence-review
          fix: refer to it as shared/evidence-review, or rename one of the two

      3 skills; 1 error, 1 warning"
    `);
  });

  it("reports a check with each package's verdict and a failing count line", async () => {
    const report = await checkSkills(join(FIXTURES, "failures/name-mismatch"));
    expect(formatCheckReport(report, { relativeTo })).toMatchInlineSnapshot(`
      "failures/name-mismatch/evidence-review/SKILL.md: INVALID: it will not load
        failures/name-mismatch/evidence-review/SKILL.md:2: error NAME_MISMATCH name: \`name\` is "evidence-reviewer" but the package folder is "evidence-review"; they must be equal
            fix: set \`name: evidence-review\`, or rename the folder to "evidence-reviewer"
      1 skill checked: 0 valid, 1 invalid, 0 warnings — FAILED"
    `);
    const ok = await checkSkills(join(FIXTURES, "valid/team"));
    expect(formatCheckReport(ok, { relativeTo })).toMatchInlineSnapshot(`
      "valid/team/evidence-review/SKILL.md: ok evidence-review (152 bytes of instructions, 4 lines)
      valid/team/release-notes/SKILL.md: ok release-notes (100 bytes of instructions, 5 lines)
      2 skills checked: 2 valid, 0 invalid, 0 warnings"
    `);
  });

  it("says that a skill with only tolerated mistakes loads, and still fails the check", async () => {
    const report = await checkSkills(join(FIXTURES, "failures/allowed-tools-list"));
    expect(formatCheckReport(report, { relativeTo })).toMatchInlineSnapshot(`
      "failures/allowed-tools-list/allowed-tools-list/SKILL.md: INVALID: Pablo loads it with warnings, but fix the errors below
        failures/allowed-tools-list/allowed-tools-list/SKILL.md:4: error ALLOWED_TOOLS_LIST allowed-tools: \`allowed-tools\` is a YAML list; the specification requires one space-separated string (Pablo reads the list, other agents may not)
            fix: write \`allowed-tools: Read Grep Bash(git log:*)\`
      1 skill checked: 0 valid, 1 invalid, 0 warnings — FAILED"
    `);
  });

  it("shows a skill as the model will read it, with its hash", async () => {
    const discovery = await discoverSkills([{ name: "team", dir: join(FIXTURES, "valid/team") }]);
    const { context } = await activateSkills(["team/evidence-review"], discovery);
    const [skill] = context;
    if (!skill) throw new Error("expected the skill");
    expect(
      formatSkillDetail(skill, { relativeTo }).replace(skill.contentHash, "<sha256>"),
    ).toMatchInlineSnapshot(`
      "id: team/evidence-review
      description: Review cited evidence and retain exact source references.
      file: valid/team/evidence-review/SKILL.md
      license: Apache-2.0
      compatibility: Any Pablo distribution with the fs tools.
      metadata.owner: team
      metadata.version: 1.0
      instructions: 152 bytes, sha256 <sha256>


      Use only the evidence provided by the task and configured tools.

      Run \`scripts/collect.sh\` only if the deployment admits it; activation never runs it.
      "
    `);
    expect(formatSkillContext(context).replace(skill.dir, "<dir>")).toMatchInlineSnapshot(`
      "# Active skills

      These instructions guide the task. They grant no tool, path or permission; files beside a skill are read with the file tools under the normal read policy.

      <skill id="team/evidence-review" dir="<dir>">
      Use only the evidence provided by the task and configured tools.

      Run \`scripts/collect.sh\` only if the deployment admits it; activation never runs it.
      </skill>"
    `);
  });
});

describe("terminal safety", () => {
  it("prints no control characters from skill text, field names or paths", async () => {
    const root = useTempDir();
    writeSkill(
      root,
      "evil",
      '---\nname: evil\ndescription: "Looks fine\\u001b[2J\\u001b]0;owned\\u0007"\n"x\\u001b[31m": 1\n---\nBody \u001b[31mred\n',
    );
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    const listed = formatSkillList(discovery);
    const { context } = await activateSkills(["r/evil"], discovery);
    const shown = formatSkillDetail(context[0] as NonNullable<(typeof context)[0]>);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence.
    const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
    expect(listed).not.toMatch(control);
    expect(shown).not.toMatch(control);
    expect(listed).toContain("Looks fine\ufffd[2J\ufffd]0;owned\ufffd");
  });
});
