import { createHash } from "node:crypto";
import { type AuthorityLayer, defineLayer, type NameRule } from "@pablo/kernel";
import type { SkillSummary } from "./types.js";

export interface AllowedToolsOptions {
  /** Layer id cited by every decision it makes (default `skills.allowed-tools`). */
  readonly id?: string;
  /**
   * Maps one `allowed-tools` token to the native tool names it stands for, for example through
   * the task's catalog (`catalog.resolve(token)?.name`). Undefined drops the token. By default a
   * token is taken as a native tool name.
   */
  readonly resolve?: (token: string) => string | readonly string[] | undefined;
  /** Native tool names that stay callable whatever the skills say (the Skill tool, ToolSearch). */
  readonly alsoAllow?: readonly string[];
}

/** A token that could not become a rule; the tool it names stays denied by the layer. */
export interface DroppedToken {
  readonly skill: string;
  readonly token: string;
  readonly reason: string;
}

export interface AllowedToolsRestriction {
  /** The restricting layer, or undefined when no activated skill declares `allowed-tools`. */
  readonly layer: AuthorityLayer | undefined;
  /** Native tool names the layer lets through (before the other layers have their say). */
  readonly allowed: string[];
  readonly dropped: DroppedToken[];
}

const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

/**
 * Turns the `allowed-tools` of activated skills into one authority layer over the `tool`
 * dimension: default deny, allowing the union of the tools the skills name. Layers intersect, so
 * this can only take tools away from a session; a tool another layer denies stays denied. Skills
 * that declare no `allowed-tools` contribute nothing; when none declares any, there is no layer.
 * A token with an argument pattern (`Bash(git:*)`) cannot be enforced on the tool dimension, so
 * it is dropped and its tool stays denied: the stricter reading wins.
 */
export function allowedToolsLayer(
  skills: readonly Pick<SkillSummary, "id" | "allowedTools">[],
  options: AllowedToolsOptions = {},
): AllowedToolsRestriction {
  const declaring = skills.filter((s) => s.allowedTools !== undefined);
  if (declaring.length === 0) return { layer: undefined, allowed: [], dropped: [] };
  const resolve = options.resolve ?? ((token: string) => token);
  const rules: NameRule[] = [];
  const dropped: DroppedToken[] = [];
  const allowed = new Set<string>();
  const add = (id: string, tool: string) => {
    rules.push({ id, match: tool });
    allowed.add(tool);
  };
  for (const skill of declaring) {
    for (const [index, token] of (skill.allowedTools ?? []).entries()) {
      if (token.includes("(")) {
        dropped.push({
          skill: skill.id,
          token,
          reason: "an argument pattern cannot be enforced on the tool dimension, so the tool stays denied",
        });
        continue;
      }
      const tools = resolve(token);
      const list = tools === undefined ? [] : typeof tools === "string" ? [tools] : [...tools];
      if (list.length === 0) {
        dropped.push({ skill: skill.id, token, reason: "it names no tool of this task" });
        continue;
      }
      for (const [n, tool] of list.entries())
        add(ruleId(`${skill.id}:${index}${list.length > 1 ? `.${n}` : ""}`), tool);
    }
  }
  for (const [index, tool] of (options.alsoAllow ?? []).entries()) add(`also-allow:${index}`, tool);
  const layer = defineLayer({
    id: options.id ?? "skills.allowed-tools",
    description: `allowed-tools of ${declaring.map((s) => s.id).join(", ")}: a restriction only`,
    tool: { default: "deny", allow: rules },
  });
  return { layer, allowed: [...allowed].sort(), dropped };
}

function ruleId(candidate: string): string {
  if (RULE_ID.test(candidate)) return candidate;
  const hash = createHash("sha256").update(candidate).digest("hex").slice(0, 16);
  return `skill:${hash}`;
}
