import { StringRecord } from "@pablo/kernel";
import Type, { type Static } from "typebox";

/** A configured root, already resolved to an absolute directory by the host's configuration. */
export const SkillRootSchema = Type.Object(
  {
    name: Type.String({ description: "Root name: the first half of every qualified id (`team`)." }),
    dir: Type.String({ description: "Absolute directory whose child folders are skill packages." }),
  },
  { additionalProperties: false },
);
export type SkillRoot = Static<typeof SkillRootSchema>;

export const SkillSeveritySchema = Type.Union([Type.Literal("error"), Type.Literal("warning")], {
  description: "`error`: the skill does not load. `warning`: it loads; the author should look.",
});
export type SkillSeverity = Static<typeof SkillSeveritySchema>;

/** One problem, with where it is, what is wrong and how to fix it. */
export const SkillDiagnosticSchema = Type.Object(
  {
    severity: SkillSeveritySchema,
    code: Type.String({ description: "Stable code from `SkillCode`." }),
    path: Type.String({ description: "Absolute path of the file or folder concerned." }),
    root: Type.Optional(Type.String({ description: "Root name, when the problem was found under a root." })),
    skill: Type.Optional(Type.String({ description: "Qualified id or package folder concerned." })),
    field: Type.Optional(Type.String({ description: "Frontmatter field concerned." })),
    line: Type.Optional(Type.Integer({ minimum: 1, description: "1-based line in `path`." })),
    message: Type.String({ description: "What is wrong." }),
    fix: Type.Optional(Type.String({ description: "How to fix it." })),
  },
  { additionalProperties: false },
);
export type SkillDiagnostic = Static<typeof SkillDiagnosticSchema>;

function stringMap(description: string) {
  return StringRecord(Type.String(), Type.String(), { additionalProperties: false, description });
}

/** What discovery learns from a skill's frontmatter. Nothing here grants a capability. */
export const SkillSummarySchema = Type.Object(
  {
    id: Type.String({ description: "Qualified id `root/name`." }),
    root: Type.String({ description: "Root name." }),
    name: Type.String({ description: "Skill name, equal to its folder name." }),
    description: Type.String({ description: "What the skill does and when to use it (what a model sees)." }),
    dir: Type.String({ description: "Absolute canonical package folder." }),
    file: Type.String({ description: "Absolute canonical path of SKILL.md." }),
    bytes: Type.Integer({ minimum: 0, description: "Size of SKILL.md when discovered." }),
    frontmatterHash: Type.String({ description: "SHA-256 (hex) of the frontmatter text." }),
    license: Type.Optional(Type.String({ description: "`license` field, as written." })),
    compatibility: Type.Optional(Type.String({ description: "`compatibility` field, as written." })),
    metadata: Type.Optional(stringMap("`metadata`: a map of strings to strings.")),
    allowedTools: Type.Optional(
      Type.Array(Type.String(), {
        description: "`allowed-tools`, split on spaces. Metadata only: it grants nothing.",
      }),
    ),
    otherFields: Type.Optional(
      stringMap(
        "Fields outside the specification, each with a bounded preview of its value. They grant nothing.",
      ),
    ),
  },
  { additionalProperties: false },
);
export type SkillSummary = Static<typeof SkillSummarySchema>;

/** What discovery returns: the skills that load, in precedence order, and every problem found. */
export interface Discovery {
  readonly skills: SkillSummary[];
  readonly diagnostics: SkillDiagnostic[];
}

/** A skill whose complete instructions were read for a task's context. */
export const ActivatedSkillSchema = Type.Object(
  {
    ...SkillSummarySchema.properties,
    instructions: Type.String({
      description: "The Markdown body after the frontmatter: what the model reads.",
    }),
    instructionBytes: Type.Integer({
      minimum: 0,
      description: "UTF-8 bytes of `instructions`; counted against the context.",
    }),
    contentHash: Type.String({
      description:
        "SHA-256 (hex) of the SKILL.md bytes that were read: all of them, or the kept ones when truncated.",
    }),
    truncated: Type.Optional(
      Type.Object(
        {
          keptBytes: Type.Integer({ minimum: 0, description: "Bytes of SKILL.md that were read and kept." }),
          totalBytes: Type.Integer({ minimum: 0, description: "Size of SKILL.md." }),
        },
        {
          additionalProperties: false,
          description:
            'Set when SKILL.md was over max_skill_bytes and the deployment truncates (oversize = "truncate"): `instructions` end with a `…[skill truncated at N bytes of M]` line.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ActivatedSkill = Static<typeof ActivatedSkillSchema>;

/** The verdict on one package checked against the specification. */
export const SkillCheckResultSchema = Type.Object(
  {
    dir: Type.String({ description: "Absolute package folder." }),
    file: Type.String({ description: "Absolute path of its SKILL.md." }),
    valid: Type.Boolean({
      description:
        "True when there is no error diagnostic. Stricter than loading: a skill with a tolerated mistake (ALLOWED_TOOLS_LIST, METADATA_VALUE, SKILL_TOO_LARGE) loads with a warning but is invalid here.",
    }),
    diagnostics: Type.Array(SkillDiagnosticSchema, { description: "Errors and warnings, in file order." }),
    skill: Type.Optional(
      Type.Object(SkillSummarySchema.properties, {
        additionalProperties: false,
        description: "What discovery would report, when the skill loads (possibly with warnings).",
      }),
    ),
    instructionBytes: Type.Optional(
      Type.Integer({ minimum: 0, description: "What activation would add to a task's context." }),
    ),
    lines: Type.Optional(Type.Integer({ minimum: 0, description: "Lines in the body." })),
  },
  { additionalProperties: false },
);
export type SkillCheckResult = Static<typeof SkillCheckResultSchema>;

/** The verdict on a folder: one package, or a folder of packages. */
export const SkillCheckReportSchema = Type.Object(
  {
    dir: Type.String({ description: "Absolute folder that was checked." }),
    valid: Type.Boolean({ description: "True when every package is valid and at least one was found." }),
    results: Type.Array(SkillCheckResultSchema, {
      description: "One verdict per package found, in name order.",
    }),
    diagnostics: Type.Array(SkillDiagnosticSchema, {
      description: "Problems with the folder itself (no skills, folders without SKILL.md, links).",
    }),
  },
  { additionalProperties: false },
);
export type SkillCheckReport = Static<typeof SkillCheckReportSchema>;
