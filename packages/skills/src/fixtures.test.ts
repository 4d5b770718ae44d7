import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { activateSkills } from "./activate.js";
import { checkSkills } from "./check.js";
import { discoverSkills } from "./discover.js";
import { DEFAULT_MAX_SKILL_BYTES, MAX_FRONTMATTER_BYTES } from "./limits.js";
import { FIXTURES, skillText, useTempDir, writeSkill } from "./test-support/temp.js";

interface Mode {
  readonly folder: string;
  readonly code: string;
  readonly field?: string;
  readonly line?: number;
  /** Discovery loads it (warnings only, or a problem only a full read finds). */
  readonly discovered: boolean;
  /** `checkSkills` passes it. */
  readonly valid: boolean;
  /**
   * Tolerated at load: discovery loads it with a warning of `code` (same field and line) and
   * `checkSkills` reports the same code as an error.
   */
  readonly tolerated?: boolean;
  /** What discovery loads from it. */
  readonly loads?: Record<string, unknown>;
  /** `max_skill_bytes` for discovery and check (default 256 KiB). */
  readonly maxSkillBytes?: number;
}

const MODES: Record<string, Mode> = {
  "no-frontmatter": {
    folder: "no-frontmatter",
    code: "NO_FRONTMATTER",
    line: 1,
    discovered: false,
    valid: false,
  },
  "invalid-yaml": { folder: "invalid-yaml", code: "INVALID_YAML", line: 3, discovered: false, valid: false },
  "missing-name": {
    folder: "missing-name",
    code: "MISSING_FIELD",
    field: "name",
    discovered: false,
    valid: false,
  },
  "missing-description": {
    folder: "missing-description",
    code: "MISSING_FIELD",
    field: "description",
    discovered: false,
    valid: false,
  },
  "name-mismatch": {
    folder: "evidence-review",
    code: "NAME_MISMATCH",
    field: "name",
    line: 2,
    discovered: false,
    valid: false,
  },
  "upper-case": {
    folder: "Evidence-Review",
    code: "NAME_UPPERCASE",
    field: "name",
    line: 2,
    discovered: false,
    valid: false,
  },
  "doubled-hyphen": {
    folder: "evidence--review",
    code: "NAME_HYPHENS",
    field: "name",
    line: 2,
    discovered: false,
    valid: false,
  },
  "long-description": {
    folder: "long-description",
    code: "FIELD_TOO_LONG",
    field: "description",
    line: 3,
    discovered: false,
    valid: false,
  },
  "compatibility-too-long": {
    folder: "compatibility-too-long",
    code: "FIELD_TOO_LONG",
    field: "compatibility",
    line: 4,
    discovered: false,
    valid: false,
  },
  // A list only narrows, so it is read; each item split like the string form.
  "allowed-tools-list": {
    folder: "allowed-tools-list",
    code: "ALLOWED_TOOLS_LIST",
    field: "allowed-tools",
    line: 4,
    discovered: true,
    valid: false,
    tolerated: true,
    loads: { allowedTools: ["Read", "Grep", "Bash(git log:*)"] },
  },
  "allowed-tools-not-strings": {
    folder: "allowed-tools-not-strings",
    code: "INVALID_FIELD_TYPE",
    field: "allowed-tools",
    line: 4,
    discovered: false,
    valid: false,
  },
  // The non-string values are left out; the string value beside them is kept.
  "metadata-not-strings": {
    folder: "metadata-not-strings",
    code: "METADATA_VALUE",
    field: "metadata.version",
    line: 5,
    discovered: true,
    valid: false,
    tolerated: true,
    loads: { metadata: { owner: "team-a" } },
  },
  // Listing reads the frontmatter only, so a body past max_skill_bytes does not refuse the skill.
  oversize: {
    folder: "oversize",
    code: "SKILL_TOO_LARGE",
    discovered: true,
    valid: false,
    tolerated: true,
    maxSkillBytes: 2048,
    loads: { name: "oversize", bytes: 3397 },
  },
  "unknown-fields": {
    folder: "unknown-fields",
    code: "UNKNOWN_FIELD",
    field: "model",
    line: 4,
    discovered: true,
    valid: true,
  },
  "js-frontmatter": {
    folder: "js-frontmatter",
    code: "FRONTMATTER_LANGUAGE",
    line: 1,
    discovered: false,
    valid: false,
  },
  "yaml-alias-bomb": { folder: "yaml-alias-bomb", code: "YAML_ALIAS_LIMIT", discovered: false, valid: false },
  "yaml-tag": { folder: "yaml-tag", code: "YAML_TAG", line: 3, discovered: false, valid: false },
  "duplicate-key": {
    folder: "duplicate-key",
    code: "INVALID_YAML",
    line: 4,
    discovered: false,
    valid: false,
  },
  "not-a-mapping": {
    folder: "not-a-mapping",
    code: "FRONTMATTER_NOT_MAPPING",
    line: 2,
    discovered: false,
    valid: false,
  },
  "not-closed": { folder: "not-closed", code: "FRONTMATTER_NOT_CLOSED", discovered: false, valid: false },
  "empty-body": { folder: "empty-body", code: "EMPTY_BODY", line: 5, discovered: true, valid: true },
  // Discovery reads only the frontmatter, so a broken body is found by check and activation.
  "invalid-utf8": { folder: "invalid-utf8", code: "INVALID_UTF8", line: 5, discovered: true, valid: false },
};

const failures = join(FIXTURES, "failures");

describe("one committed fixture per failure mode", () => {
  it("has a test row for every fixture folder and a folder for every row", () => {
    expect(readdirSync(failures).sort()).toEqual(Object.keys(MODES).sort());
  });

  it.each(Object.entries(MODES))("%s", async (name, mode) => {
    const root = join(failures, name);
    const file = join(root, mode.folder, "SKILL.md");
    const options = mode.maxSkillBytes === undefined ? {} : { maxSkillBytes: mode.maxSkillBytes };
    const located = {
      path: file,
      ...(mode.field === undefined ? {} : { field: mode.field }),
      ...(mode.line === undefined ? {} : { line: mode.line }),
    };
    const discovery = await discoverSkills([{ name: "fixture", dir: root }], options);
    expect(discovery.skills.map((s) => s.file)).toEqual(mode.discovered ? [file] : []);
    if (mode.loads) expect(discovery.skills[0]).toMatchObject(mode.loads);
    if (!mode.discovered) {
      expect(discovery.diagnostics).toContainEqual(
        expect.objectContaining({ severity: "error", code: mode.code, path: file, root: "fixture" }),
      );
      expect(discovery.diagnostics.every((d) => d.path === file)).toBe(true);
    }
    if (mode.tolerated) {
      expect(discovery.diagnostics.map((d) => [d.severity, d.code])).toEqual(
        discovery.diagnostics.map(() => ["warning", mode.code]),
      );
      expect(discovery.diagnostics).toContainEqual(
        expect.objectContaining({ severity: "warning", code: mode.code, ...located }),
      );
    }

    const report = await checkSkills(root, options);
    expect(report.valid).toBe(mode.valid);
    expect(report.results).toHaveLength(1);
    const found = report.results[0]?.diagnostics.find((d) => d.code === mode.code);
    expect(found, JSON.stringify(report.results[0]?.diagnostics)).toMatchObject({
      ...located,
      severity: mode.valid ? "warning" : "error",
    });
    expect(found?.message.length).toBeGreaterThan(10);
    expect(found?.fix?.length).toBeGreaterThan(5);
  });
});

describe("failure modes built at test time", () => {
  it("refuses a symlinked package folder, a symlinked SKILL.md and a symlinked root", async () => {
    const tmp = useTempDir();
    const elsewhere = join(tmp, "elsewhere");
    writeSkill(elsewhere, "linked", skillText("linked"));
    writeFileSync(join(elsewhere, "secret.md"), skillText("leaf"));
    const root = join(tmp, "root");
    writeSkill(root, "real", skillText("real"));
    symlinkSync(join(elsewhere, "linked"), join(root, "linked"));
    mkdirSync(join(root, "leaf"));
    symlinkSync(join(elsewhere, "secret.md"), join(root, "leaf", "SKILL.md"));
    symlinkSync(root, join(tmp, "root-link"));

    const discovery = await discoverSkills([
      { name: "team", dir: root },
      { name: "via-link", dir: join(tmp, "root-link") },
    ]);
    expect(discovery.skills.map((s) => s.id)).toEqual(["team/real"]);
    expect(discovery.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ["SYMLINK_REFUSED", join(root, "leaf", "SKILL.md")],
      ["SYMLINK_REFUSED", join(root, "linked")],
      ["SYMLINK_REFUSED", join(tmp, "root-link")],
    ]);

    const report = await checkSkills(root);
    expect(report.valid).toBe(false);
    expect(report.diagnostics.map((d) => d.code)).toEqual(["SYMLINK_REFUSED"]);
    expect((await checkSkills(join(root, "linked"))).diagnostics.map((d) => d.code)).toEqual([
      "SYMLINK_REFUSED",
    ]);
  });

  it("lists a huge SKILL.md from its frontmatter with a warning; check and activation refuse it", async () => {
    const root = useTempDir();
    const body = "x".repeat(DEFAULT_MAX_SKILL_BYTES + 10);
    const file = join(writeSkill(root, "huge", skillText("huge", "A very large skill.", body)), "SKILL.md");
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    expect(discovery.skills.map((s) => s.id)).toEqual(["r/huge"]);
    expect(discovery.diagnostics).toEqual([
      expect.objectContaining({ severity: "warning", code: "SKILL_TOO_LARGE", path: file }),
    ]);
    expect((await checkSkills(root)).results[0]?.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ["error", "SKILL_TOO_LARGE"],
    ]);
    const activation = await activateSkills(["r/huge"], discovery);
    expect(activation.context).toEqual([]);
    expect(activation.diagnostics.map((d) => [d.severity, d.code])).toEqual([["error", "SKILL_TOO_LARGE"]]);

    const roomy = await discoverSkills([{ name: "r", dir: root }], {
      maxSkillBytes: 2 * DEFAULT_MAX_SKILL_BYTES,
    });
    expect(roomy.diagnostics).toEqual([]);
    expect((await checkSkills(root, { maxSkillBytes: 2 * DEFAULT_MAX_SKILL_BYTES })).valid).toBe(true);
  });

  it("refuses a frontmatter that does not close within the bytes discovery reads", async () => {
    const root = useTempDir();
    const padding = `# ${"p".repeat(200)}\n`.repeat(Math.ceil(MAX_FRONTMATTER_BYTES / 200));
    writeSkill(root, "wide", `---\nname: wide\n${padding}description: d\n---\nbody\n`);
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    expect(discovery.diagnostics.map((d) => d.code)).toEqual(["FRONTMATTER_TOO_LARGE"]);
    expect((await checkSkills(root)).valid).toBe(false);
  });

  it("refuses a FIFO named SKILL.md without blocking on it", async () => {
    const root = useTempDir();
    mkdirSync(join(root, "pipe"));
    execFileSync("mkfifo", [join(root, "pipe", "SKILL.md")]);
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    expect(discovery.diagnostics).toEqual([
      expect.objectContaining({ code: "SPECIAL_FILE", path: join(root, "pipe", "SKILL.md") }),
    ]);
  });

  it("refuses a SKILL.md that is a directory", async () => {
    const root = useTempDir();
    mkdirSync(join(root, "odd", "SKILL.md"), { recursive: true });
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    expect(discovery.diagnostics.map((d) => d.code)).toEqual(["SPECIAL_FILE"]);
  });
});
