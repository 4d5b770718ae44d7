import { Check, Errors } from "typebox/value";
import { type Access, type Dimension, describeAccess } from "./access.js";
import { HostErrorCode, PabloError } from "./errors.js";
import {
  isCanonicalAbsolutePath,
  matchCommand,
  matchExecutable,
  matchName,
  matchNet,
  matchPath,
  urlPrefixProblem,
} from "./matchers.js";
import { checkCanonicalUrl, NET_CANONICAL_RULE, printable } from "./net-url.js";
import {
  type AnyRule,
  type AuthorityLayer,
  AuthorityLayerSchema,
  type CommandRule,
  type DimensionPolicy,
  type NameRule,
  type PathRule,
  type UrlRule,
} from "./policy-schema.js";

/**
 * A decision names who made it: the layer and rule ID, or `default` when no rule matched and the
 * layer's default applied. `layer` is `default` when no layer had anything to say.
 */
export interface Decision {
  readonly verdict: "allow" | "deny";
  readonly layer: string;
  readonly rule: string;
  readonly reason: string;
  readonly dimension?: Dimension;
}

/** The rule ID cited when a layer's default decided. */
export const DEFAULT_RULE = "default";

/**
 * Evaluates accesses against an ordered stack of layers. Pure: the same inputs give the same
 * decision. Within a layer deny wins and a non-empty allow list denies what it does not match;
 * across layers the result is the intersection, so the first layer (outermost first) that denies
 * any access decides. When everything is allowed, the innermost explicit allow rule is cited.
 */
export function evaluateAuthority(layers: readonly AuthorityLayer[], accesses: readonly Access[]): Decision {
  let citedAllow: Decision | undefined;
  for (const layer of layers) {
    for (const access of accesses) {
      const verdict = evaluateInLayer(layer, access);
      if (verdict.verdict === "deny") return verdict;
      if (verdict.rule !== DEFAULT_RULE) citedAllow = verdict;
    }
  }
  return (
    citedAllow ?? {
      verdict: "allow",
      layer: layers.length > 0 ? (layers[layers.length - 1]?.id ?? DEFAULT_RULE) : DEFAULT_RULE,
      rule: DEFAULT_RULE,
      reason: "no rule restricts this call",
    }
  );
}

/** One layer's verdict on one access. */
export function evaluateInLayer(layer: AuthorityLayer, access: Access): Decision {
  const dimension = access.dimension;
  const policy = layer[dimension] as DimensionPolicy | undefined;
  const what = describeAccess(access);
  const decide = (verdict: "allow" | "deny", rule: string, reason: string): Decision => ({
    verdict,
    layer: layer.id,
    rule,
    reason,
    dimension,
  });
  // Every layer refuses a URL with more than one reading, restricted or not, so neither an allow
  // nor a deny list is ever compared with a spelling a server could read differently.
  if (access.dimension === "net") {
    const url = checkCanonicalUrl(access.url);
    if (!url.ok) {
      return decide("deny", NET_CANONICAL_RULE, `net ${printable(access.url)}: ${url.code}: ${url.reason}`);
    }
  }
  if (!policy) return decide("allow", DEFAULT_RULE, `${what}: not restricted by this layer`);

  if (isPathAccess(access) && !isCanonicalAbsolutePath(access.path)) {
    return decide("deny", DEFAULT_RULE, `${what}: not a canonical absolute path`);
  }
  if (access.dimension === "command" && "unproven" in access) {
    const restricted =
      (policy.allow?.length ?? 0) > 0 || (policy.deny?.length ?? 0) > 0 || policy.default === "deny";
    return restricted
      ? decide("deny", "unproven", `${what}: the command rules cannot prove it, so it is denied`)
      : decide("allow", DEFAULT_RULE, `${what}: commands are not restricted by this layer`);
  }

  const denied = firstMatching(policy.deny, access, true);
  if (denied) return decide("deny", denied.id, `${what}: denied by rule ${denied.id}`);
  const allow = policy.allow ?? [];
  if (allow.length > 0) {
    const allowed = firstMatching(allow, access, false);
    return allowed
      ? decide("allow", allowed.id, `${what}: allowed by rule ${allowed.id}`)
      : decide("deny", DEFAULT_RULE, `${what}: matched no allow rule`);
  }
  const verdict = policy.default ?? "allow";
  return decide(
    verdict,
    DEFAULT_RULE,
    `${what}: ${verdict === "allow" ? "allowed" : "denied"} by the layer's default`,
  );
}

/**
 * Validates a layer's shape (closed schema) and its meaning: unique rule IDs, absolute paths and
 * executables, parseable URL prefixes. Throws {@link PabloError} `INVALID_POLICY` naming the problem.
 */
export function defineLayer(layer: AuthorityLayer): AuthorityLayer {
  // Interpreted, not compiled: a host defines a few layers per task, and compiling costs more.
  if (!Check(AuthorityLayerSchema, layer)) {
    const first = [...Errors(AuthorityLayerSchema, layer)][0];
    throw new PabloError(
      HostErrorCode.INVALID_POLICY,
      `layer ${String((layer as { id?: unknown }).id)}: ${first?.instancePath || "/"} ${first?.message ?? "is invalid"}`,
    );
  }
  const seen = new Set<string>();
  for (const [dimension, rules] of layerRules(layer)) {
    for (const rule of rules) {
      if (seen.has(rule.id)) {
        throw new PabloError(HostErrorCode.INVALID_POLICY, `layer ${layer.id}: duplicate rule ID ${rule.id}`);
      }
      seen.add(rule.id);
      const problem = ruleProblem(dimension, rule);
      if (problem)
        throw new PabloError(HostErrorCode.INVALID_POLICY, `layer ${layer.id}, rule ${rule.id}: ${problem}`);
    }
  }
  return Object.freeze(layer);
}

/** Every rule of a layer with its dimension, in declaration order. */
export function layerRules(layer: AuthorityLayer): Array<[Dimension, readonly AnyRule[]]> {
  const out: Array<[Dimension, readonly AnyRule[]]> = [];
  for (const key of Object.keys(layer)) {
    if (key === "id" || key === "description" || key === "immutable") continue;
    const policy = layer[key as Dimension] as DimensionPolicy | undefined;
    if (!policy) continue;
    out.push([key as Dimension, [...(policy.deny ?? []), ...(policy.allow ?? [])]]);
  }
  return out;
}

function ruleProblem(dimension: Dimension, rule: AnyRule): string | undefined {
  if (
    "path" in rule &&
    !isCanonicalAbsolutePath(rule.path.length > 1 ? rule.path.replace(/\/+$/, "") : rule.path)
  ) {
    return `path must be absolute and canonical, got ${JSON.stringify(rule.path)}`;
  }
  if ("executable" in rule && !isCanonicalAbsolutePath(rule.executable)) {
    return `executable must be an absolute path, got ${JSON.stringify(rule.executable)}`;
  }
  if (dimension === "net" && "prefix" in rule) return urlPrefixProblem(rule.prefix);
  return undefined;
}

function isPathAccess(access: Access): access is Extract<Access, { path: string }> {
  return "path" in access;
}

/**
 * The matching rule with the smallest ID, so that the order of rules within a list never changes
 * which rule a decision cites.
 */
function firstMatching(
  rules: readonly AnyRule[] | undefined,
  access: Access,
  forDeny: boolean,
): AnyRule | undefined {
  let best: AnyRule | undefined;
  for (const rule of rules ?? []) {
    if (ruleMatches(rule, access, forDeny) && (best === undefined || rule.id < best.id)) best = rule;
  }
  return best;
}

function ruleMatches(rule: AnyRule, access: Access, forDeny: boolean): boolean {
  switch (access.dimension) {
    case "fs.read":
    case "fs.write":
      return "path" in rule && matchPath(rule as PathRule, access.path);
    case "executable":
    case "mcp.launcher":
      return "path" in rule && matchExecutable(rule as PathRule, access.path);
    case "command":
      return (
        "executable" in rule &&
        "argv" in access &&
        matchCommand(rule as CommandRule, access.executable, access.argv)
      );
    case "net":
      return "prefix" in rule && matchNet(rule as UrlRule, access.url, forDeny);
    default:
      return "match" in rule && matchName(rule as NameRule, access.value);
  }
}
