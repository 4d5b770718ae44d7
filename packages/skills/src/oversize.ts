import Type, { type Static } from "typebox";

/**
 * `[options.skills] oversize`: what activation does with a SKILL.md over `max_skill_bytes`.
 * Discovery lists such a skill either way (it reads the frontmatter only) and `checkSkills`
 * always reports it as an error; this choice only decides what a task gets when it activates it.
 */
export const SkillOversizeSchema = Type.Union([Type.Literal("refuse"), Type.Literal("truncate")], {
  description:
    'What activating a SKILL.md over max_skill_bytes does: "refuse" (default) fails the activation with SKILL_TOO_LARGE; "truncate" keeps the first max_skill_bytes and ends the instructions with a visible `…[skill truncated at N bytes of M]` line.',
});
export type SkillOversize = Static<typeof SkillOversizeSchema>;

/** The stricter choice is the default: nobody gets half a skill without asking for it. */
export const DEFAULT_SKILL_OVERSIZE: SkillOversize = "refuse";

/** The line that ends truncated instructions, so the model (and a reviewer) sees the cut. */
export function truncationMarker(keptBytes: number, totalBytes: number): string {
  return `…[skill truncated at ${keptBytes} bytes of ${totalBytes}]`;
}
