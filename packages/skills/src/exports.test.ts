import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public surface", () => {
  it("exports exactly the documented names", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ActivatedSkillSchema",
        "DEFAULT_MAX_CONTEXT_BYTES",
        "DEFAULT_MAX_ENTRIES_PER_ROOT",
        "DEFAULT_MAX_SKILL_BYTES",
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
        "SkillRootBindingSchema",
        "SkillRootSchema",
        "SkillRootsSchema",
        "SkillSummarySchema",
        "SkillToolInputSchema",
        "SkillsOptionsSchema",
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
