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

/** The parts of a URL that destination policy compares; never the raw string. */
export interface ParsedDestination {
  readonly protocol: string;
  readonly host: string;
  readonly port: string;
  readonly segments: readonly string[];
  /** Encoded separators or dots a server might decode into a different path. */
  readonly ambiguousPath: boolean;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  "http:": "80",
  "https:": "443",
  "ws:": "80",
  "wss:": "443",
};

/** Parses a URL for destination policy, or returns undefined when it is not a URL. */
export function parseDestination(text: string): ParsedDestination | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase().replace(/\.+$/, "");
  const port = url.port === "" ? (DEFAULT_PORTS[url.protocol] ?? "") : url.port;
  // Percent-encoded unreserved characters mean the same as the characters (RFC 3986, 6.2.2.2).
  const pathname = url.pathname.replace(/%([0-9a-f]{2})/gi, (encoded, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9_~-]/.test(char) ? char : encoded.toUpperCase();
  });
  // Empty segments are dropped: servers commonly collapse `//`.
  const segments = pathname.split("/").filter((s) => s !== "");
  const ambiguousPath = /%(2F|5C|2E|00)/.test(pathname);
  return { protocol: url.protocol, host, port, segments, ambiguousPath };
}

/**
 * The URL lies under the rule's prefix: same scheme, host and effective port, and the rule's path
 * segments are a prefix of the URL's. Userinfo, query and fragment play no part. A URL whose path
 * carries encoded separators or dots matches an allow rule only when the rule covers the whole
 * origin, and always matches a deny rule for its origin (`forDeny`).
 */
export function matchUrl(rule: UrlRule, url: ParsedDestination, forDeny: boolean): boolean {
  const prefix = parseDestination(rule.prefix);
  if (!prefix) return false;
  if (prefix.protocol !== url.protocol || prefix.host !== url.host || prefix.port !== url.port) return false;
  if (url.ambiguousPath) return forDeny || prefix.segments.length === 0;
  if (url.segments.length < prefix.segments.length) return false;
  return prefix.segments.every((segment, i) => url.segments[i] === segment);
}
