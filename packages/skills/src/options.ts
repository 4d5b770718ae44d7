import { resolveSection, StringRecord } from "@pablo/kernel";
import Type, { type Static } from "typebox";
import {
  DEFAULT_MAX_CONTEXT_BYTES,
  DEFAULT_MAX_SKILL_BYTES,
  ROOT_NAME_PATTERN,
  SKILL_NAME_PATTERN,
} from "./limits.js";
import { DEFAULT_SKILL_OVERSIZE, type SkillOversize, SkillOversizeSchema } from "./oversize.js";
import type { SkillRoot } from "./types.js";

const ROOT_NAME = ROOT_NAME_PATTERN.source;
const QUALIFIED_ID = `${ROOT_NAME.slice(0, -1)}/${SKILL_NAME_PATTERN.source.slice(1)}`;
const MiB = 1024 * 1024;

/** Where one root is: a folder inside a binding given with `--bind NAME=DIR`. */
export const SkillRootBindingSchema = Type.Object(
  {
    base: Type.Literal("binding", { description: "Roots resolve only through named bindings." }),
    name: Type.String({ minLength: 1, description: "Binding name, as given with `--bind NAME=DIR`." }),
    path: Type.String({
      minLength: 1,
      description: "Relative path inside the binding; `.` for the binding itself.",
    }),
  },
  {
    additionalProperties: false,
    description: "One skills root. The host resolves it to an absolute folder before discovery.",
  },
);

/**
 * `[options.skills.roots]`: root name to location. In deployment.toml each value is a binding
 * reference; the configuration loader resolves it to an absolute folder before this schema sees
 * it, so both forms validate. The table's order is the precedence of bare names.
 */
export const SkillRootsSchema = StringRecord(
  Type.String({ pattern: ROOT_NAME }),
  Type.Union([
    Type.String({ pattern: "^/", description: "Absolute folder a binding reference resolved to." }),
    SkillRootBindingSchema,
  ]),
  {
    additionalProperties: false,
    description:
      "Skills roots by name. A root is a folder whose child folders are skill packages. Nothing else is scanned: no home directory, no default location.",
  },
);

/** `[options.skills]`. */
export const SkillsOptionsSchema = Type.Object(
  {
    roots: Type.Optional(SkillRootsSchema),
    activate: Type.Optional(
      Type.Array(Type.String({ pattern: QUALIFIED_ID, description: 'A qualified id "root/name".' }), {
        maxItems: 256,
        description: "Skills whose complete instructions every task starts with, in this order.",
      }),
    ),
    max_context_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 32 * MiB,
        description: `Most bytes of activated instructions one task holds (default ${DEFAULT_MAX_CONTEXT_BYTES}).`,
      }),
    ),
    max_skill_bytes: Type.Optional(
      Type.Integer({
        minimum: 1024,
        maximum: 32 * MiB,
        description: `Largest SKILL.md that is loaded (default ${DEFAULT_MAX_SKILL_BYTES}).`,
      }),
    ),
    restrict_to_allowed_tools: Type.Optional(
      Type.Boolean({
        description:
          "When true, the activated skills' `allowed-tools` narrow the tools a task may call. It only ever restricts; it never grants (default false).",
      }),
    ),
    tool: Type.Optional(
      Type.Boolean({
        description:
          "Offer the deferred Skill tool so the model can activate skills by name (default true; needs roots).",
      }),
    ),
    oversize: Type.Optional(SkillOversizeSchema),
  },
  { additionalProperties: false },
);

export type SkillRootBinding = Static<typeof SkillRootBindingSchema>;
export type SkillRoots = Static<typeof SkillRootsSchema>;
export type SkillsOptions = Static<typeof SkillsOptionsSchema>;

/** `[options.skills]` with every default filled in, in the names the API uses. */
export interface ResolvedSkillsOptions {
  /** The roots in table order, each resolved to an absolute folder. */
  readonly roots: readonly SkillRoot[];
  readonly activate: readonly string[];
  readonly maxContextBytes: number;
  readonly maxSkillBytes: number;
  readonly restrictToAllowedTools: boolean;
  readonly tool: boolean;
  /** What activation does with a SKILL.md over `maxSkillBytes`: refuse it, or cut it with a marker. */
  readonly oversize: SkillOversize;
}

/**
 * Validates `[options.skills]` (absent means all defaults) with the kernel's `resolveSection`, after
 * the configuration loader resolved its binding references, and fills in the defaults. Never
 * throws: problems are returned as `path: message` strings; a root that is still a binding
 * reference is one.
 */
export function resolveSkillsOptions(
  value: unknown,
): { ok: true; options: ResolvedSkillsOptions } | { ok: false; issues: string[] } {
  const checked = resolveSection(SkillsOptionsSchema, value ?? undefined, { max: 10 });
  if (!checked.ok) return { ok: false, issues: checked.errors.map((e) => `${e.path}: ${e.message}`) };
  const options = checked.value;
  const roots: SkillRoot[] = [];
  const issues: string[] = [];
  for (const [name, value] of Object.entries(options.roots ?? {})) {
    if (typeof value === "string") roots.push({ name, dir: value });
    else
      issues.push(
        `/roots/${name}: the binding reference ${value.name}:${value.path} was not resolved to a folder`,
      );
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    options: {
      roots,
      activate: options.activate ?? [],
      maxContextBytes: options.max_context_bytes ?? DEFAULT_MAX_CONTEXT_BYTES,
      maxSkillBytes: options.max_skill_bytes ?? DEFAULT_MAX_SKILL_BYTES,
      restrictToAllowedTools: options.restrict_to_allowed_tools ?? false,
      oversize: options.oversize ?? DEFAULT_SKILL_OVERSIZE,
      tool: options.tool ?? true,
    },
  };
}
