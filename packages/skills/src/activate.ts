import { basename, dirname } from "node:path";
import { type Access, type AuthorityLayer, evaluateAuthority } from "@pablo/kernel";
import { SkillCode } from "./codes.js";
import { summaryOf } from "./discover.js";
import { DEFAULT_MAX_CONTEXT_BYTES, DEFAULT_MAX_SKILL_BYTES } from "./limits.js";
import { DEFAULT_SKILL_OVERSIZE, type SkillOversize } from "./oversize.js";
import { diagnostic, readSkillPackage } from "./read-skill.js";
import { notFoundMessage, resolveSkill } from "./resolve.js";
import { isRefusal, openDirectory } from "./safe-fs.js";
import type { ActivatedSkill, Discovery, SkillDiagnostic, SkillSummary } from "./types.js";

/** How one SKILL.md is read for activation. */
export interface ReadActivationOptions {
  /** Largest SKILL.md read (`max_skill_bytes`); never more than this is held in memory. */
  readonly maxSkillBytes?: number;
  /**
   * What a SKILL.md over `maxSkillBytes` gets (`oversize`): `refuse` (default) is a
   * `SKILL_TOO_LARGE` error; `truncate` keeps the first `maxSkillBytes`, ends the instructions
   * with a `…[skill truncated at N bytes of M]` line and adds a `SKILL_TRUNCATED` warning.
   */
  readonly oversize?: SkillOversize;
}

export interface ActivateOptions extends ReadActivationOptions {
  /** The most instruction bytes the task context may hold (`max_context_bytes`). */
  readonly maxContextBytes?: number;
  /** Skills already in the context: they count against the bound and are not read again. */
  readonly alreadyActive?: readonly ActivatedSkill[];
  /**
   * Authority layers to consult for each activation, over the `skill` dimension (the qualified
   * id) and `fs.read` (SKILL.md's path). A deny is a `SKILL_DENIED` diagnostic.
   */
  readonly layers?: readonly AuthorityLayer[];
}

export interface Activation {
  /** The activated skills, in the order asked, each with its complete instructions. */
  readonly context: ActivatedSkill[];
  readonly diagnostics: SkillDiagnostic[];
  /** Instruction bytes the context now holds, `alreadyActive` included. */
  readonly usedBytes: number;
}

/**
 * Reads the complete instructions of each named skill (qualified `root/name`, or a bare name) and
 * adds them to a bounded context, in order. Each SKILL.md is read again and validated again, so a
 * file changed or replaced by a link since discovery is caught. A skill that would not fit, is
 * unknown, denied or no longer valid is a diagnostic; the others still activate. Never throws for
 * skill content.
 */
export async function activateSkills(
  ids: readonly string[],
  discovered: Discovery | readonly SkillSummary[],
  options: ActivateOptions = {},
): Promise<Activation> {
  const skills = "skills" in discovered ? discovered.skills : discovered;
  const maxContext = options.maxContextBytes ?? DEFAULT_MAX_CONTEXT_BYTES;
  const context: ActivatedSkill[] = [];
  const diagnostics: SkillDiagnostic[] = [];
  const active = new Set((options.alreadyActive ?? []).map((s) => s.id));
  let used = (options.alreadyActive ?? []).reduce((sum, s) => sum + s.instructionBytes, 0);
  for (const ref of ids) {
    const skill = resolveSkill(ref, skills);
    if (!skill) {
      diagnostics.push({
        ...diagnostic(
          ref,
          SkillCode.SKILL_NOT_FOUND,
          notFoundMessage(ref, skills),
          "run `pablo skills list` and use one of its ids",
        ),
        skill: ref,
      });
      continue;
    }
    if (active.has(skill.id)) {
      diagnostics.push({
        ...diagnostic(
          skill.file,
          SkillCode.DUPLICATE_ACTIVATION,
          `${skill.id} is already active; it was not added twice`,
          "name each skill once",
        ),
        severity: "warning",
        root: skill.root,
        skill: skill.id,
      });
      continue;
    }
    const denied = options.layers ? denial(options.layers, skill) : undefined;
    if (denied) {
      diagnostics.push(denied);
      continue;
    }
    const read = await readActivation(skill, options);
    if (!("activated" in read)) {
      diagnostics.push(...read.diagnostics);
      continue;
    }
    const { activated } = read;
    if (used + activated.instructionBytes > maxContext) {
      diagnostics.push(contextFull(activated, used, maxContext, [...active]));
      continue;
    }
    used += activated.instructionBytes;
    active.add(activated.id);
    context.push(activated);
    diagnostics.push(...read.warnings);
  }
  return { context, diagnostics, usedBytes: used };
}

/**
 * Reads one discovered skill's complete SKILL.md for activation, opening its root without
 * following a link and its folder and file through the open root. `warnings` are what the
 * activation itself has to say (`SKILL_TRUNCATED`); the tolerated frontmatter warnings are
 * discovery's to report, not repeated here.
 */
export async function readActivation(
  skill: SkillSummary,
  options: ReadActivationOptions = {},
): Promise<{ activated: ActivatedSkill; warnings: SkillDiagnostic[] } | { diagnostics: SkillDiagnostic[] }> {
  const context = { root: skill.root, skill: skill.id };
  const root = await openDirectory(dirname(skill.dir));
  if (isRefusal(root)) {
    const code = root.refused === "symlink" ? SkillCode.SYMLINK_REFUSED : SkillCode.READ_FAILED;
    return {
      diagnostics: [
        {
          ...diagnostic(
            dirname(skill.dir),
            code,
            `the root of ${skill.id} can no longer be opened: ${root.detail}`,
            "run discovery again",
          ),
          ...context,
        },
      ],
    };
  }
  try {
    const read = await readSkillPackage(
      skill.dir,
      basename(skill.dir),
      {
        depth: "full",
        maxSkillBytes: options.maxSkillBytes ?? DEFAULT_MAX_SKILL_BYTES,
        oversize: options.oversize ?? DEFAULT_SKILL_OVERSIZE,
      },
      root,
    );
    const errors = read.diagnostics.filter((d) => d.severity === "error").map((d) => ({ ...d, ...context }));
    if (read.absent) {
      return {
        diagnostics: [
          {
            ...diagnostic(
              skill.file,
              SkillCode.SKILL_NOT_FOUND,
              `${skill.id} no longer has a SKILL.md`,
              "run discovery again",
            ),
            ...context,
          },
        ],
      };
    }
    if (!read.fields || read.body === undefined || errors.length > 0) return { diagnostics: errors };
    const summary = summaryOf(skill.root, read, read.fields);
    return {
      activated: {
        ...summary,
        instructions: read.body,
        instructionBytes: Buffer.byteLength(read.body, "utf8"),
        contentHash: read.contentHash ?? "",
        ...(read.truncated ? { truncated: read.truncated } : {}),
      },
      warnings: read.diagnostics
        .filter((d) => d.code === SkillCode.SKILL_TRUNCATED)
        .map((d) => ({ ...d, ...context })),
    };
  } finally {
    await root.close();
  }
}

/** The accesses an activation makes, for authority layers: the skill and the file it reads. */
export function activationAccesses(skill: SkillSummary): Access[] {
  return [
    { dimension: "skill", value: skill.id },
    { dimension: "fs.read", path: skill.file },
  ];
}

function denial(layers: readonly AuthorityLayer[], skill: SkillSummary): SkillDiagnostic | undefined {
  const decision = evaluateAuthority(layers, activationAccesses(skill));
  if (decision.verdict === "allow") return undefined;
  return {
    ...diagnostic(
      skill.file,
      SkillCode.SKILL_DENIED,
      `activating ${skill.id} is denied by ${decision.layer}/${decision.rule}: ${decision.reason}`,
      "allow the skill (and reading its SKILL.md) in the deployment's policy, or do not activate it",
    ),
    root: skill.root,
    skill: skill.id,
  };
}

function contextFull(
  skill: ActivatedSkill,
  used: number,
  max: number,
  active: readonly string[],
): SkillDiagnostic {
  const remaining = Math.max(0, max - used);
  return {
    ...diagnostic(
      skill.file,
      SkillCode.CONTEXT_FULL,
      `${skill.id} needs ${skill.instructionBytes} bytes of context but only ${remaining} of max_context_bytes ${max} remain` +
        (active.length > 0 ? ` (already active: ${active.join(", ")})` : ""),
      "raise [options.skills] max_context_bytes, activate fewer skills, or shorten the skill",
    ),
    root: skill.root,
    skill: skill.id,
  };
}

/**
 * `pablo skills show`: one skill read in full, as activation would read it, without a context
 * bound, together with what discovery said about it. A skill that does not load gives the
 * diagnostics that explain why instead of a bare "not found".
 */
export async function showSkill(
  ref: string,
  discovery: Discovery,
  options: ReadActivationOptions = {},
): Promise<{ skill?: ActivatedSkill; diagnostics: SkillDiagnostic[] }> {
  const skill = resolveSkill(ref, discovery.skills);
  const about = (id: string) => discovery.diagnostics.filter((d) => d.skill === id);
  if (!skill) {
    const trimmed = ref.trim();
    const known = discovery.diagnostics.filter(
      (d) =>
        d.skill !== undefined &&
        (d.skill === trimmed || (!trimmed.includes("/") && d.skill.endsWith(`/${trimmed}`))),
    );
    if (known.length > 0) return { diagnostics: known };
    return {
      diagnostics: [
        {
          ...diagnostic(
            trimmed,
            SkillCode.SKILL_NOT_FOUND,
            notFoundMessage(ref, discovery.skills),
            "run `pablo skills list` and use one of its ids",
          ),
          skill: trimmed,
        },
      ],
    };
  }
  const read = await readActivation(skill, options);
  if (!("activated" in read))
    return { diagnostics: [...about(skill.id).filter((d) => d.severity === "warning"), ...read.diagnostics] };
  return { skill: read.activated, diagnostics: [...about(skill.id), ...read.warnings] };
}
