export {
  type ActivateOptions,
  type Activation,
  activateSkills,
  type ReadActivationOptions,
  readActivation,
  showSkill,
} from "./activate.js";
export {
  type AllowedToolsOptions,
  type AllowedToolsRestriction,
  allowedToolsLayer,
  type DroppedToken,
} from "./allowed-tools.js";
export { type CheckOptions, checkSkills } from "./check.js";
export { SkillCode, SkillsErrorCode, TOLERATED_AT_LOAD } from "./codes.js";
export { type DiscoverOptions, discoverSkills } from "./discover.js";
export {
  type FormatOptions,
  formatCheckReport,
  formatDiagnostic,
  formatSkillContext,
  formatSkillDetail,
  formatSkillList,
} from "./format.js";
export {
  DEFAULT_MAX_CONTEXT_BYTES,
  DEFAULT_MAX_ENTRIES_PER_ROOT,
  DEFAULT_MAX_SKILL_BYTES,
  MAX_COMPATIBILITY_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_FRONTMATTER_BYTES,
  MAX_NAME_LENGTH,
  MAX_YAML_ALIAS_COUNT,
  SKILL_FILE,
  SKILL_NAME_PATTERN,
} from "./limits.js";
export {
  type ResolvedSkillsOptions,
  resolveSkillsOptions,
  type SkillRootBinding,
  SkillRootBindingSchema,
  type SkillRoots,
  SkillRootsSchema,
  type SkillsOptions,
  SkillsOptionsSchema,
} from "./options.js";
export { DEFAULT_SKILL_OVERSIZE, type SkillOversize, SkillOversizeSchema } from "./oversize.js";
export { resolveSkill } from "./resolve.js";
export {
  createSkillTool,
  SKILL_TOOL_NAME,
  SKILL_TOOL_PROVIDER_NAME,
  type SkillToolConfig,
  SkillToolInputSchema,
  skillToolFor,
} from "./skill-tool.js";
export {
  type ActivatedSkill,
  ActivatedSkillSchema,
  type Discovery,
  type SkillCheckReport,
  SkillCheckReportSchema,
  type SkillCheckResult,
  SkillCheckResultSchema,
  type SkillDiagnostic,
  SkillDiagnosticSchema,
  type SkillRoot,
  SkillRootSchema,
  type SkillSeverity,
  type SkillSummary,
  SkillSummarySchema,
} from "./types.js";
export { parseAllowedTools } from "./validate.js";
