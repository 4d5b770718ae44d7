import { resolve } from "node:path";
import { checkSkills, formatCheckReport, formatSkillDetail, formatSkillList, showSkill } from "@pablo/skills";
import type { TaskEnvironment } from "../distribution.js";
import { CliErrorCode } from "../error-codes.js";
import { Exit } from "../exit-codes.js";
import { type Io, printJson } from "../output.js";

/** `pablo skills list`: the skills discovery found in the configured roots, and every diagnostic. */
export function skillsListCommand(io: Io, task: TaskEnvironment, options: { json: boolean }): number {
  if (!task.skills) {
    io.stderr(
      `pablo: no skills roots are configured ([options.skills.roots] with --bind) [${CliErrorCode.SKILLS_NOT_CONFIGURED}]\n`,
    );
    return Exit.USAGE;
  }
  if (options.json)
    printJson(io, { ...task.skills.discovery, activated: task.skills.activated.map((s) => s.id) });
  else io.stdout(`${formatSkillList(task.skills.discovery, { relativeTo: io.cwd })}\n`);
  return Exit.OK;
}

/** `pablo skills show NAME`: what a model would see when the skill is activated. */
export async function skillsShowCommand(
  io: Io,
  task: TaskEnvironment,
  options: { name: string; json: boolean },
): Promise<number> {
  if (!task.skills) {
    io.stderr(
      `pablo: no skills roots are configured ([options.skills.roots] with --bind) [${CliErrorCode.SKILLS_NOT_CONFIGURED}]\n`,
    );
    return Exit.USAGE;
  }
  const { skill, diagnostics } = await showSkill(options.name, task.skills.discovery, {
    maxSkillBytes: task.skills.maxSkillBytes,
    oversize: task.skills.oversize,
  });
  if (options.json) printJson(io, { skill: skill ?? null, diagnostics });
  else if (skill) io.stdout(`${formatSkillDetail(skill, { relativeTo: io.cwd })}\n`);
  else
    io.stderr(
      `pablo: no loadable skill ${JSON.stringify(options.name)}${diagnostics[0] ? `: ${diagnostics[0].message}` : ""}\n`,
    );
  return skill ? Exit.OK : Exit.FAILED;
}

/** `pablo skills check DIR`: validates one skill or a folder of skills; exit 1 when anything is invalid. */
export async function skillsCheckCommand(io: Io, options: { dir: string; json: boolean }): Promise<number> {
  const report = await checkSkills(resolve(io.cwd, options.dir));
  if (options.json) printJson(io, report);
  else io.stdout(`${formatCheckReport(report, { relativeTo: io.cwd })}\n`);
  return report.valid ? Exit.OK : Exit.FAILED;
}
