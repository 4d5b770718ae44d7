import { join } from "node:path";
import { Compile } from "typebox/compile";
import { describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import * as api from "./index.js";
import * as optionsApi from "./options.js";
import { FIXTURES } from "./test-support/temp.js";

describe("public surface", () => {
  it("exports exactly the documented names", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ActivatedSkillSchema",
        "DEFAULT_MAX_CONTEXT_BYTES",
        "DEFAULT_MAX_ENTRIES_PER_ROOT",
        "DEFAULT_MAX_SKILL_BYTES",
        "DEFAULT_SKILL_OVERSIZE",
        "MAX_COMPATIBILITY_LENGTH",
        "MAX_DESCRIPTION_LENGTH",
        "MAX_FRONTMATTER_BYTES",
        "MAX_NAME_LENGTH",
        "MAX_YAML_ALIAS_COUNT",
        "SKILL_FILE",
        "SKILL_NAME_PATTERN",
        "SKILL_TOOL_NAME",
        "SKILL_TOOL_PROVIDER_NAME",
        "SkillCheckReportSchema",
        "SkillCheckResultSchema",
        "SkillCode",
        "SkillDiagnosticSchema",
        "SkillOversizeSchema",
        "SkillRootBindingSchema",
        "SkillRootSchema",
        "SkillRootsSchema",
        "SkillSummarySchema",
        "SkillToolInputSchema",
        "SkillsErrorCode",
        "SkillsOptionsSchema",
        "TOLERATED_AT_LOAD",
        "activateSkills",
        "allowedToolsLayer",
        "checkSkills",
        "createSkillTool",
        "discoverSkills",
        "formatCheckReport",
        "formatDiagnostic",
        "formatSkillContext",
        "formatSkillDetail",
        "formatSkillList",
        "parseAllowedTools",
        "readActivation",
        "resolveSkill",
        "resolveSkillsOptions",
        "showSkill",
        "skillToolFor",
      ]
    `);
  });
});

describe("the ./options entry", () => {
  it("is the one entry beside the main one, so a host can read [options.skills] without the parsers", () => {
    expect(Object.keys(packageJson.exports)).toEqual([".", "./options", "./package.json"]);
    expect(Object.keys(optionsApi).sort()).toEqual([
      "SkillRootBindingSchema",
      "SkillRootsSchema",
      "SkillsOptionsSchema",
      "resolveSkillsOptions",
    ]);
  });
});

describe("result schemas", () => {
  it("describe what the functions return, so --json output has a documented shape", async () => {
    const report = await api.checkSkills(join(FIXTURES, "valid/team"));
    expect(Compile(api.SkillCheckReportSchema).Check(report)).toBe(true);
    const discovery = await api.discoverSkills([{ name: "team", dir: join(FIXTURES, "valid/team") }]);
    for (const skill of discovery.skills) expect(Compile(api.SkillSummarySchema).Check(skill)).toBe(true);
    const { context } = await api.activateSkills(["team/evidence-review"], discovery);
    expect(Compile(api.ActivatedSkillSchema).Check(context[0])).toBe(true);
    const broken = await api.discoverSkills([{ name: "x", dir: join(FIXTURES, "failures/upper-case") }]);
    for (const d of broken.diagnostics) expect(Compile(api.SkillDiagnosticSchema).Check(d)).toBe(true);
  });
});
