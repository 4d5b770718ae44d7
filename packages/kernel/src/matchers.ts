import { type CanonicalUrl, checkCanonicalUrl, type UrlCheck } from "./net-url.js";
import type { CommandRule, NameRule, PathRule, UrlRule } from "./policy-schema.js";

/** `pattern` equals `value`, where each `*` in the pattern stands for any run of characters. */
export function matchName(rule: NameRule, value: string): boolean {
  const parts = rule.match.split("*");
  if (parts.length === 1) return rule.match === value;
  const first = parts[0] ?? "";
  const last = parts[parts.length - 1] ?? "";
  if (!value.startsWith(first) || value.length < first.length + last.length) return false;
  let position = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] ?? "";
    const found = value.indexOf(part, position);
    if (found < 0) return false;
    position = found + part.length;
  }
  return value.length - last.length >= position && value.endsWith(last);
}

/** True when `path` is an absolute path with no empty, `.` or `..` components. */
export function isCanonicalAbsolutePath(path: string): boolean {
  if (!path.startsWith("/") || path.includes("\0")) return false;
  if (path === "/") return true;
  const components = path.slice(1).split("/");
  return components.every((c) => c !== "" && c !== "." && c !== "..");
}

/** The rule's path equals `path` or is an ancestor of it, by whole components. */
export function matchPath(rule: PathRule, path: string): boolean {
  const root = rule.path.length > 1 ? rule.path.replace(/\/+$/, "") : rule.path;
  if (root === "/") return path.startsWith("/");
  return path === root || path.startsWith(`${root}/`);
}

/** The executable path equals the rule's path exactly (executables are not directory trees). */
export function matchExecutable(rule: PathRule, path: string): boolean {
  return rule.path === path;
}

/** A simple command matches by absolute executable and literal arguments (prefix or exact). */
export function matchCommand(rule: CommandRule, executable: string, argv: readonly string[]): boolean {
  if (rule.executable !== executable) return false;
  if (rule.match === "exact" && argv.length !== rule.args.length) return false;
  if (argv.length < rule.args.length) return false;
  return rule.args.every((arg, i) => argv[i] === arg);
}

/**
 * The URL lies under the rule's prefix: same scheme, host and effective port (an explicit default
 * port is the same origin as none), and the rule's path segments lead the URL's. Both sides must
 * be canonical ({@link checkCanonicalUrl}); userinfo, query and fragment play no part.
 *
 * Allow and deny read a prefix differently, each in the stricter direction. An allow prefix
 * ending in `/` admits only what lies inside that directory (`/v1/` admits `/v1/x`, not `/v1`,
 * nor `/v1?x`); a deny prefix also refuses the directory's own name, and compares segments
 * without their `;parameters`, so `/v1/admin;x` cannot pass a deny of `/v1/admin` on a server
 * that strips them.
 */
export function matchUrl(rule: UrlRule, url: CanonicalUrl, forDeny: boolean): boolean {
  const prefix = canonicalCached(rule.prefix);
  // A prefix that is not canonical (a layer that skipped defineLayer) matches every deny, no allow.
  if (!prefix.ok) return forDeny;
  const { protocol, hostname, port, segments } = prefix.url;
  if (protocol !== url.protocol || hostname !== url.hostname || port !== url.port) return false;
  const directory = segments[segments.length - 1] === "";
  const named = directory ? segments.length - 1 : segments.length;
  if (url.segments.length < (directory && !forDeny ? segments.length : named)) return false;
  for (let i = 0; i < named; i++) {
    const want = segments[i] ?? "";
    const have = url.segments[i] ?? "";
    if (forDeny ? withoutParameters(want) !== withoutParameters(have) : want !== have) return false;
  }
  return true;
}

/**
 * Whether a `net` access matches a rule, deciding on the canonical URL. A URL that is not
 * canonical matches every deny rule and no allow rule; authority refuses it before any rule.
 */
export function matchNet(rule: UrlRule, rawUrl: string, forDeny: boolean): boolean {
  const url = canonicalCached(rawUrl);
  return url.ok ? matchUrl(rule, url.url, forDeny) : forDeny;
}

/** Why `prefix` cannot be a `net` rule, or undefined when it can. */
export function urlPrefixProblem(prefix: string): string | undefined {
  const check = canonicalCached(prefix);
  if (!check.ok) {
    return check.code === "URL_INVALID"
      ? `prefix is not a URL: ${JSON.stringify(prefix)} (${check.code}: ${check.reason})`
      : `prefix is not canonical: ${JSON.stringify(prefix)} (${check.code}: ${check.reason})`;
  }
  // A prefix names an origin and a path; anything else would be silently ignored by matching.
  if (/^[^/]*\/\/[^/?#]*@/.test(prefix) || /[?#]/.test(prefix)) {
    return `prefix must not carry user information, a query or a fragment: ${JSON.stringify(prefix)}`;
  }
  return undefined;
}

function withoutParameters(segment: string): string {
  const semicolon = segment.indexOf(";");
  return semicolon < 0 ? segment : segment.slice(0, semicolon);
}

// Rule prefixes are re-read on every decision; a small bounded memo keeps that cheap while
// leaving matching a pure function of its inputs.
const memo = new Map<string, UrlCheck>();

function canonicalCached(raw: string): UrlCheck {
  let check = memo.get(raw);
  if (check === undefined) {
    check = checkCanonicalUrl(raw);
    if (memo.size >= 1024) memo.clear();
    memo.set(raw, check);
  }
  return check;
}
