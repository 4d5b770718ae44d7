/**
 * Stable diagnostic codes. A code names one meaning forever; messages are for people. An
 * `error` diagnostic means the skill does not load; a `warning` means it loads and the author
 * should still look. The codes in {@link TOLERATED_AT_LOAD} are warnings when skills are loaded
 * and errors when they are checked: the same code, so an author sees one name for one mistake.
 */
export const SkillCode = {
  /** A configured root does not exist. */
  ROOT_MISSING: "ROOT_MISSING",
  /** A configured root is not usable: not absolute, not a directory, a bad or duplicate name. */
  ROOT_INVALID: "ROOT_INVALID",
  /** A root, package folder or SKILL.md is a symbolic link. */
  SYMLINK_REFUSED: "SYMLINK_REFUSED",
  /** SKILL.md is not a regular file (a directory, FIFO, socket or device). */
  SPECIAL_FILE: "SPECIAL_FILE",
  /** The file or folder could not be read (permissions, I/O). */
  READ_FAILED: "READ_FAILED",
  /** A root holds more entries than discovery lists. */
  TOO_MANY_ENTRIES: "TOO_MANY_ENTRIES",
  /**
   * SKILL.md is larger than `max_skill_bytes`. A warning at discovery (only the frontmatter is
   * read); an error at check, and at activation unless the deployment truncates.
   */
  SKILL_TOO_LARGE: "SKILL_TOO_LARGE",
  /** An activated SKILL.md was cut at `max_skill_bytes`, with a visible marker line. (warning) */
  SKILL_TRUNCATED: "SKILL_TRUNCATED",
  /** SKILL.md is not valid UTF-8. */
  INVALID_UTF8: "INVALID_UTF8",
  /** SKILL.md does not start with a `---` line. */
  NO_FRONTMATTER: "NO_FRONTMATTER",
  /** The frontmatter has no closing `---` line. */
  FRONTMATTER_NOT_CLOSED: "FRONTMATTER_NOT_CLOSED",
  /** The frontmatter does not close within the bytes discovery reads. */
  FRONTMATTER_TOO_LARGE: "FRONTMATTER_TOO_LARGE",
  /** The frontmatter names a language other than YAML (`---js`, `---json`, ...). Nothing is evaluated. */
  FRONTMATTER_LANGUAGE: "FRONTMATTER_LANGUAGE",
  /** The frontmatter is not valid YAML. */
  INVALID_YAML: "INVALID_YAML",
  /** YAML aliases would expand past the bound (billion laughs). */
  YAML_ALIAS_LIMIT: "YAML_ALIAS_LIMIT",
  /** An explicit YAML tag outside the core schema (`!!js/function`, `!!binary`, `!custom`). */
  YAML_TAG: "YAML_TAG",
  /** The frontmatter is YAML but not a mapping of fields. */
  FRONTMATTER_NOT_MAPPING: "FRONTMATTER_NOT_MAPPING",
  /** A required field (`name`, `description`) is absent. */
  MISSING_FIELD: "MISSING_FIELD",
  /** A field has the wrong YAML type. */
  INVALID_FIELD_TYPE: "INVALID_FIELD_TYPE",
  /** A field that must not be empty is empty. */
  FIELD_EMPTY: "FIELD_EMPTY",
  /** A field is longer than the specification allows. */
  FIELD_TOO_LONG: "FIELD_TOO_LONG",
  /** `name` has upper-case letters. */
  NAME_UPPERCASE: "NAME_UPPERCASE",
  /** `name` starts or ends with a hyphen, or has two in a row. */
  NAME_HYPHENS: "NAME_HYPHENS",
  /** `name` has characters other than a-z, 0-9 and `-`. */
  NAME_CHARACTERS: "NAME_CHARACTERS",
  /** `name` differs from the package folder's name. */
  NAME_MISMATCH: "NAME_MISMATCH",
  /**
   * `allowed-tools` is a YAML list of strings; the specification wants one space-separated
   * string. The list is read (it only ever narrows): a warning when loading, an error at check.
   */
  ALLOWED_TOOLS_LIST: "ALLOWED_TOOLS_LIST",
  /**
   * A `metadata` value is not a string. It is left out of the parsed metadata: a warning when
   * loading, an error at check.
   */
  METADATA_VALUE: "METADATA_VALUE",
  /** A field outside the specification. It is reported and grants nothing. (warning) */
  UNKNOWN_FIELD: "UNKNOWN_FIELD",
  /** The body after the frontmatter is empty. (warning) */
  EMPTY_BODY: "EMPTY_BODY",
  /** The body is longer than the recommended 500 lines. (warning) */
  LONG_BODY: "LONG_BODY",
  /** Another root has a skill with the same bare name and wins bare-name lookups. (warning) */
  NAME_SHADOWED: "NAME_SHADOWED",
  /** A folder checked as a skill package has no SKILL.md. (warning) */
  NOT_A_SKILL: "NOT_A_SKILL",
  /** A checked folder holds no skill at all. */
  NO_SKILLS: "NO_SKILLS",
  /** An activation names no discovered skill. */
  SKILL_NOT_FOUND: "SKILL_NOT_FOUND",
  /** An activation was refused by an authority layer. */
  SKILL_DENIED: "SKILL_DENIED",
  /** A skill would not fit in the remaining task context. */
  CONTEXT_FULL: "CONTEXT_FULL",
  /** The same skill was named twice for activation. (warning) */
  DUPLICATE_ACTIVATION: "DUPLICATE_ACTIVATION",
} as const;

export type SkillCode = (typeof SkillCode)[keyof typeof SkillCode];

/**
 * Result codes the Skill tool adds to the kernel's. An activation that fails for a reason the
 * kernel has a code for (a link, a special file, too large, bad UTF-8, not found) uses that code.
 */
export const SkillsErrorCode = {
  /** The skill no longer loads (its SKILL.md broke since discovery); `details.problems` says why. */
  SKILL_INVALID: "SKILL_INVALID",
} as const;

export type SkillsErrorCode = (typeof SkillsErrorCode)[keyof typeof SkillsErrorCode];

declare module "@pablo/kernel" {
  interface ErrorCodeRegistry extends Record<SkillsErrorCode, true> {}
}

/**
 * Mistakes that grant nothing and that real, published skills make: loading tolerates them (the
 * skill loads, with a warning) and `checkSkills` refuses them (an error with the same code), so
 * a user can use such a skill today and its author is still told to fix it.
 */
export const TOLERATED_AT_LOAD: ReadonlySet<SkillCode> = new Set<SkillCode>([
  SkillCode.ALLOWED_TOOLS_LIST,
  SkillCode.METADATA_VALUE,
  SkillCode.SKILL_TOO_LARGE,
]);
