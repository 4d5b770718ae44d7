import { type AuthorityLayer, defineLayer, type NameRule, type PathRule } from "@pablo/kernel";
import type { McpPolicy } from "./options-schema.js";

type SeedRules = NonNullable<McpPolicy["servers"]>;

/**
 * Maps `[[options.mcp.policies]]` onto kernel authority layers, one layer per entry, in order:
 * `servers` onto `mcp.server`, `tools` onto `mcp.tool` (qualified `mcp/{server}/{tool}` names)
 * and `launchers` onto `mcp.launcher` (exact absolute paths). The seed's `value` is the kernel's
 * `match` (names, `*` wildcard) or `path` (launchers). Within a layer deny wins and a non-empty
 * allow list denies what it does not match; layers intersect. Layers only narrow: an allow rule
 * never adds a server the deployment did not configure. Throws the kernel's `INVALID_POLICY`
 * {@link PabloError} for duplicate rule IDs or a relative launcher path.
 */
export function mcpPolicyLayers(policies: readonly McpPolicy[]): AuthorityLayer[] {
  return policies.map((policy, index) => {
    const layer: Record<string, unknown> = {
      id: policy.id ?? `mcp.policy.${index + 1}`,
      description: "[[options.mcp.policies]] entry",
    };
    if (policy.servers) layer["mcp.server"] = nameDimension(policy.servers);
    if (policy.tools) layer["mcp.tool"] = nameDimension(policy.tools);
    if (policy.launchers) layer["mcp.launcher"] = pathDimension(policy.launchers);
    return defineLayer(layer as AuthorityLayer);
  });
}

function nameDimension(rules: SeedRules) {
  const map = (list: SeedRules["allow"]): NameRule[] | undefined =>
    list?.map((rule) => ({ id: rule.id, match: rule.value }));
  return withLists(rules.default, map(rules.allow), map(rules.deny));
}

function pathDimension(rules: SeedRules) {
  const map = (list: SeedRules["allow"]): PathRule[] | undefined =>
    list?.map((rule) => ({ id: rule.id, path: rule.value }));
  return withLists(rules.default, map(rules.allow), map(rules.deny));
}

function withLists<R>(verdict: "allow" | "deny" | undefined, allow: R[] | undefined, deny: R[] | undefined) {
  return {
    ...(verdict ? { default: verdict } : {}),
    ...(allow ? { allow } : {}),
    ...(deny ? { deny } : {}),
  };
}
