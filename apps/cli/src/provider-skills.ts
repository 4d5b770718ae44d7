import type { AuthorityLayer, CatalogDiagnostic, ToolProvider } from "@pablo/kernel";
import {
  type ActivatedSkill,
  activateSkills,
  allowedToolsLayer,
  type Discovery,
  discoverSkills,
  formatDiagnostic,
  resolveSkillsOptions,
  type SkillOversize,
  type SkillRoot,
  skillToolFor,
} from "@pablo/skills";
import { AdmissionFailure } from "./admission.js";
import { CliErrorCode } from "./error-codes.js";

/** Skills of a task: what discovery found and what the deployment activated. */
export interface TaskSkills {
  readonly roots: readonly SkillRoot[];
  readonly discovery: Discovery;
  readonly activated: readonly ActivatedSkill[];
  readonly maxSkillBytes: number;
  readonly oversize: SkillOversize;
}

export interface OpenedSkills {
  readonly skills: TaskSkills | undefined;
  readonly providers: ToolProvider[];
  readonly layers: AuthorityLayer[];
  readonly diagnostics: CatalogDiagnostic[];
}

/**
 * Discovers the configured roots (and skill folders contributed by plugins), activates
 * `[options.skills] activate`, offers the Skill tool and, when the deployment asks for it, turns
 * the activated skills' allowed-tools into a restricting layer. An activation that fails or does
 * not fit refuses admission.
 */
export async function openSkills(section: unknown, pluginRoots: readonly SkillRoot[]): Promise<OpenedSkills> {
  const none: OpenedSkills = { skills: undefined, providers: [], layers: [], diagnostics: [] };
  if (section === undefined && pluginRoots.length === 0) return none;
  const resolved = resolveSkillsOptions(section);
  if (!resolved.ok)
    throw new AdmissionFailure(`[options.skills]: ${resolved.issues.join("; ")}`, "INVALID_OPTIONS");
  const options = resolved.options;
  const roots = [...options.roots, ...pluginRoots];
  const discovery = await discoverSkills(roots, { maxSkillBytes: options.maxSkillBytes });
  const activation = await activateSkills(options.activate, discovery, {
    maxContextBytes: options.maxContextBytes,
    maxSkillBytes: options.maxSkillBytes,
    oversize: options.oversize,
  });
  const failed = activation.diagnostics.filter((d) => d.severity === "error");
  if (failed.length > 0) {
    throw new AdmissionFailure(
      `skill activation failed: ${failed.map((d) => formatDiagnostic(d)).join("; ")}`,
      CliErrorCode.SKILL_ACTIVATION_FAILED,
    );
  }
  const tool = skillToolFor(roots, discovery, {
    enabled: options.tool,
    active: activation.context,
    maxContextBytes: options.maxContextBytes,
    maxSkillBytes: options.maxSkillBytes,
    oversize: options.oversize,
    ...(options.restrictToAllowedTools ? { restrictToAllowedTools: { alsoAllow: [] } } : {}),
  });
  const layers: AuthorityLayer[] = [];
  if (options.restrictToAllowedTools) {
    const restriction = allowedToolsLayer(activation.context, { alsoAllow: tool ? [tool.name] : [] });
    if (restriction.layer) layers.push(restriction.layer);
  }
  return {
    skills: {
      roots,
      discovery,
      activated: activation.context,
      maxSkillBytes: options.maxSkillBytes,
      oversize: options.oversize,
    },
    providers: tool ? [{ id: "skills", tools: () => [tool] }] : [],
    layers,
    // Discovery errors, and what activation did to a skill (a cut body) so the person sees it.
    diagnostics: [
      ...discovery.diagnostics.filter((d) => d.severity === "error"),
      ...activation.diagnostics.filter((d) => d.severity !== "error"),
    ].map((d) => ({ source: "skills", code: d.code, message: formatDiagnostic(d) })),
  };
}
