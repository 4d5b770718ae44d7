import { accessSync, constants } from "node:fs";
import {
  type AnyRule,
  type AuthorityLayer,
  type Catalog,
  type Dimension,
  evaluateInLayer,
  layerRules,
} from "@pablo/kernel";
import type { CredentialReference } from "./credentials.js";
import type { CredentialConfig } from "./sections.js";

export type PolicyFindingKind =
  | "never-matches"
  | "dead-allow"
  | "duplicate-rule-id"
  | "missing-launcher"
  | "unused-credential";

/** One lint finding of `pablo policy check`. */
export interface PolicyFinding {
  readonly kind: PolicyFindingKind;
  readonly layer: string;
  readonly rule: string;
  readonly message: string;
}

export interface PolicyCheckInput {
  readonly layers: readonly AuthorityLayer[];
  readonly catalog: Catalog;
  readonly credentials?: Readonly<Record<string, CredentialConfig>>;
  readonly references?: readonly CredentialReference[];
  /** Launchers named outside layers (MCP stdio commands, the pinned shell). */
  readonly launchers?: readonly { readonly path: string; readonly where: string }[];
}

/**
 * Lints a configuration: rules that can never match a registered tool, allow rules that a deny
 * in the same layer makes dead, rule IDs used twice across layers, launchers that do not exist or
 * are not executable, and credentials nothing references.
 */
export function checkPolicy(input: PolicyCheckInput): PolicyFinding[] {
  const findings: PolicyFinding[] = [];
  const seenIds = new Map<string, string>();
  const toolNames = input.catalog.entries.map((e) => e.name);
  for (const layer of input.layers) {
    for (const [dimension, rules] of layerRules(layer)) {
      for (const rule of rules) {
        const other = seenIds.get(rule.id);
        if (other !== undefined && other !== layer.id) {
          findings.push({
            kind: "duplicate-rule-id",
            layer: layer.id,
            rule: rule.id,
            message: `rule ID ${rule.id} is also used in layer ${other}`,
          });
        }
        seenIds.set(rule.id, layer.id);
        if ((dimension === "tool" || dimension === "mcp.tool") && "match" in rule) {
          const relevant =
            dimension === "mcp.tool" ? toolNames.filter((n) => n.startsWith("mcp/")) : toolNames;
          if (
            !relevant.some(
              (name) =>
                evaluateInLayer(single(layer.id, dimension, rule), { dimension, value: name }).rule ===
                rule.id,
            )
          ) {
            findings.push({
              kind: "never-matches",
              layer: layer.id,
              rule: rule.id,
              message: `matches no registered tool (${rule.match})`,
            });
          }
        }
        if (
          ("executable" in rule || dimension === "executable" || dimension === "mcp.launcher") &&
          !isExecutable(launcherOf(rule))
        ) {
          findings.push({
            kind: "missing-launcher",
            layer: layer.id,
            rule: rule.id,
            message: `${launcherOf(rule)} does not exist or is not executable`,
          });
        }
      }
      findings.push(...deadAllows(layer, dimension, toolNames));
    }
  }
  for (const launcher of input.launchers ?? []) {
    if (!isExecutable(launcher.path)) {
      findings.push({
        kind: "missing-launcher",
        layer: "deployment",
        rule: launcher.where,
        message: `${launcher.path} does not exist or is not executable`,
      });
    }
  }
  const used = new Set((input.references ?? []).map((r) => r.credential));
  for (const name of Object.keys(input.credentials ?? {})) {
    if (!used.has(name))
      findings.push({
        kind: "unused-credential",
        layer: "deployment",
        rule: `credentials.${name}`,
        message: `no consumer references credential ${name}`,
      });
  }
  return findings;
}

/** An allow rule is dead when everything it admits is denied by a deny rule of the same layer. */
function deadAllows(
  layer: AuthorityLayer,
  dimension: Dimension,
  toolNames: readonly string[],
): PolicyFinding[] {
  const policy = layer[dimension as keyof AuthorityLayer] as
    | { allow?: AnyRule[]; deny?: AnyRule[] }
    | undefined;
  if (!policy?.allow?.length || !policy.deny?.length) return [];
  const out: PolicyFinding[] = [];
  for (const allow of policy.allow) {
    const killer = policy.deny.find((deny) => covers(deny, allow, dimension, toolNames));
    if (killer) {
      out.push({
        kind: "dead-allow",
        layer: layer.id,
        rule: allow.id,
        message: `everything it allows is denied by ${killer.id}`,
      });
    }
  }
  return out;
}

function covers(deny: AnyRule, allow: AnyRule, dimension: Dimension, toolNames: readonly string[]): boolean {
  const denyLayer = single("check", dimension, deny, "deny");
  if ("args" in allow && "args" in deny) {
    return (
      deny.executable === allow.executable &&
      deny.match === "prefix" &&
      deny.args.every((a, i) => allow.args[i] === a)
    );
  }
  if ("match" in allow) {
    const values = allow.match.includes("*")
      ? toolNames.filter((n) => matchesName(allow.match, n))
      : [allow.match];
    return (
      values.length > 0 &&
      values.every(
        (value) => evaluateInLayer(denyLayer, { dimension: dimension as "tool", value }).verdict === "deny",
      )
    );
  }
  if ("path" in allow) {
    return (
      evaluateInLayer(denyLayer, { dimension: dimension as "fs.read", path: allow.path }).verdict === "deny"
    );
  }
  if ("prefix" in allow)
    return evaluateInLayer(denyLayer, { dimension: "net", url: allow.prefix }).verdict === "deny";
  return false;
}

function matchesName(pattern: string, value: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(value);
}

function single(
  id: string,
  dimension: Dimension,
  rule: AnyRule,
  list: "allow" | "deny" = "allow",
): AuthorityLayer {
  return { id, [dimension]: { [list]: [rule] } } as AuthorityLayer;
}

function launcherOf(rule: AnyRule): string {
  return "executable" in rule ? rule.executable : "path" in rule ? rule.path : "";
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
