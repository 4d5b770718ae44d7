import type { SkillSummary } from "./types.js";

/**
 * Finds a skill by qualified id (`root/name`) or by bare name. A bare name resolves to the skill
 * of the first root that has it (roots in configured order), the same rule discovery's
 * `NAME_SHADOWED` warnings describe.
 */
export function resolveSkill(ref: string, skills: readonly SkillSummary[]): SkillSummary | undefined {
  const trimmed = ref.trim();
  if (trimmed.includes("/")) return skills.find((s) => s.id === trimmed);
  return skills.find((s) => s.name === trimmed);
}

/** Up to `max` ids that look like `ref`, for "did you mean" messages. */
export function similarSkills(ref: string, skills: readonly SkillSummary[], max = 5): string[] {
  const wanted = ref.trim().toLowerCase().split("/").pop() ?? "";
  const parts = wanted.split(/[^a-z0-9]+/).filter((p) => p.length > 2);
  return skills
    .filter(
      (s) => s.name.includes(wanted) || wanted.includes(s.name) || parts.some((p) => s.name.includes(p)),
    )
    .slice(0, max)
    .map((s) => s.id);
}

/** The message for a reference that names no skill. */
export function notFoundMessage(ref: string, skills: readonly SkillSummary[]): string {
  const similar = similarSkills(ref, skills);
  const hint =
    similar.length > 0
      ? `; similar: ${similar.join(", ")}`
      : skills.length === 0
        ? "; no skills were discovered"
        : "";
  return `no skill ${JSON.stringify(ref)} among the ${skills.length} discovered${hint}`;
}
