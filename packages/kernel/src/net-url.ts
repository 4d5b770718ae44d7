import { domainToUnicode } from "node:url";

/**
 * Why a URL is not a canonical network destination. The kernel decides `net` accesses only on
 * URLs that have one spelling; anything a server, proxy or cache could read differently from the
 * WHATWG parser is refused with one of these codes (in a decision's `reason`). A code keeps its
 * meaning forever; new meanings get new codes.
 */
export const UrlCode = {
  /** Not an absolute http, https, ws or wss URL with a host. */
  URL_INVALID: "URL_INVALID",
  /**
   * Parseable, but not spelled in its one canonical form: a trailing dot or an ideographic or
   * full-width full stop in the host, a host, IP address or port the parser would respell, an
   * empty path segment (`//`), a backslash, whitespace, an escape of an unreserved character
   * (`%41`), a `%` that starts no escape, or escapes that are not well-formed UTF-8.
   */
  URL_NOT_CANONICAL: "URL_NOT_CANONICAL",
  /** A control character (C0, DEL, C1, line or paragraph separator), raw or encoded at any depth. */
  URL_CONTROL_CHARACTER: "URL_CONTROL_CHARACTER",
  /** A bidirectional override, zero-width or other invisible format character, raw or encoded. */
  URL_INVISIBLE_CHARACTER: "URL_INVISIBLE_CHARACTER",
  /**
   * A path segment that decodes to `/` or `\` at any depth of encoding (`%2f`, `%252f`, `%5c`),
   * through an overlong UTF-8 form (`%c0%af`) or a full-width form (`／`, `＼`).
   */
  URL_ENCODED_SEPARATOR: "URL_ENCODED_SEPARATOR",
  /**
   * A path segment that is `.`, starts with `..`, or is `.` followed by `;` or whitespace, raw or
   * decoded at any depth (`%2e%2e`, `%252e`, `%c0%ae`, `．．`): servers resolve or strip these
   * (`..;` is `..` to Tomcat- and Spring-style servers), so the path they serve is not the path
   * decided.
   */
  URL_DOT_SEGMENT: "URL_DOT_SEGMENT",
} as const;

export type UrlCode = (typeof UrlCode)[keyof typeof UrlCode];

/** The rule ID a decision cites when the kernel refused a `net` access for its spelling. */
export const NET_CANONICAL_RULE = "kernel.net-canonical";

/** A URL that passed {@link checkCanonicalUrl}: the parts destination policy compares. */
export interface CanonicalUrl {
  /** The WHATWG serialization (what an HTTP client requests). */
  readonly href: string;
  /** Lower-case scheme with its colon: `https:`. */
  readonly protocol: string;
  /** Lower-case ASCII host (punycode for IDN), IPv6 in brackets, never with a trailing dot. */
  readonly hostname: string;
  /** The effective port: the explicit one, or the scheme's default (`443` for https). */
  readonly port: string;
  /** The serialized path, `/` when the URL has none. */
  readonly pathname: string;
  /** The path's segments, each percent-decoded once; a trailing slash gives a last `""`. */
  readonly segments: readonly string[];
}

export type UrlCheck =
  | { readonly ok: true; readonly url: CanonicalUrl }
  | { readonly ok: false; readonly code: UrlCode; readonly reason: string };

/**
 * Decides whether `raw` is a canonical network URL, without normalizing it: every spelling
 * another parser could read differently is refused with a code and a human reason that quotes
 * the offending part (control and invisible characters escaped). Scheme and host letter case,
 * IDNA (a Unicode host in its canonical form) and an explicit default port are the only
 * differences from the WHATWG serialization accepted. Pure: no I/O, no DNS.
 */
export function checkCanonicalUrl(raw: string): UrlCheck {
  const character = rawCharacterProblem(raw);
  if (character) return character;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("URL_INVALID", "not an absolute URL");
  }
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined) {
    return refuse("URL_INVALID", `scheme ${printable(url.protocol)} is not http, https, ws or wss`);
  }
  const spelling = rawSpellingProblem(raw);
  if (spelling) return spelling;
  const parts = RAW_PARTS.exec(raw);
  if (!parts) return refuse("URL_NOT_CANONICAL", "not spelled scheme://host/path");
  const [, , authority = "", path = "", query, fragment] = parts;
  const hostProblem = authorityProblem(authority, url, defaultPort);
  if (hostProblem) return hostProblem;
  const pathProblem = rawPathProblem(path);
  if (pathProblem) return pathProblem;
  for (const [text, where] of [
    [query, "query"],
    [fragment, "fragment"],
  ] as const) {
    const problem = text === undefined ? undefined : encodedTextProblem(text, where);
    if (problem) return problem;
  }
  const segments = url.pathname
    .split("/")
    .slice(1)
    .map((segment) => decodeOnce(segment).text);
  return {
    ok: true,
    url: {
      href: url.href,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port === "" ? defaultPort : url.port,
      pathname: url.pathname,
      segments,
    },
  };
}

/** `text` with control, invisible and non-space whitespace characters shown as `\u{...}`. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  "http:": "80",
  "https:": "443",
  "ws:": "80",
  "wss:": "443",
};

// Characters a URL never needs raw. C1 controls and the line separators count as controls.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
const INVISIBLE = /\p{Cf}/u;
const UNPRINTABLE = /[\p{Cc}\u2028\u2029\p{Cf}\s]/gu;
const ESCAPE = /%[0-9A-Fa-f]{2}/;
const RAW_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;
// Full stops that IDNA maps to "." (UTS #46): a reviewer does not read them as dots.
const IDNA_DOTS = /[\u3002\uff0e\uff61]/;
// Deep enough for any real double encoding; deeper nesting is refused rather than followed.
const MAX_DECODING_DEPTH = 8;

function refuse(code: UrlCode, reason: string): UrlCheck {
  return { ok: false, code, reason };
}

/** Characters refused wherever they stand, before the parser can strip them. */
function rawCharacterProblem(raw: string): UrlCheck | undefined {
  const control = CONTROL.exec(raw);
  if (control)
    return refuse("URL_CONTROL_CHARACTER", `raw ${printable(control[0])} at offset ${control.index}`);
  const invisible = INVISIBLE.exec(raw);
  if (invisible) {
    return refuse("URL_INVISIBLE_CHARACTER", `raw ${printable(invisible[0])} at offset ${invisible.index}`);
  }
  return undefined;
}

/** Characters the parser would re-encode or read as "/" rather than refuse. */
function rawSpellingProblem(raw: string): UrlCheck | undefined {
  const space = /\s/u.exec(raw);
  if (space) {
    return refuse(
      "URL_NOT_CANONICAL",
      `whitespace ${printable(space[0])} at offset ${space.index}; spell it %20`,
    );
  }
  // WHATWG reads "\" as "/" in http(s) URLs; other servers and proxies do not.
  if (raw.includes("\\")) return refuse("URL_NOT_CANONICAL", "a backslash, which URL parsers read as /");
  return undefined;
}

/** The raw host must be what the parser made of it, up to letter case and canonical IDNA. */
function authorityProblem(authority: string, url: URL, defaultPort: string): UrlCheck | undefined {
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  const bracketed = hostPort.startsWith("[");
  const hostEnd = bracketed ? hostPort.indexOf("]") + 1 : hostPort.indexOf(":");
  const host = hostEnd <= 0 ? hostPort : hostPort.slice(0, hostEnd);
  const portText = hostEnd <= 0 ? undefined : hostPort.slice(hostEnd);

  if (IDNA_DOTS.test(host)) {
    return refuse("URL_NOT_CANONICAL", `host ${printable(host)} has a full stop that IDNA turns into "."`);
  }
  if (host.endsWith(".")) {
    return refuse(
      "URL_NOT_CANONICAL",
      `host ${host} ends with a dot: SNI, the Host header and caches see a different name`,
    );
  }
  const lower = host.toLowerCase();
  const sameHost =
    lower === url.hostname || (/\P{ASCII}/u.test(host) && domainToUnicode(url.hostname) === lower);
  if (!sameHost) return refuse("URL_NOT_CANONICAL", `host ${printable(host)} is spelled ${url.hostname}`);
  if (!bracketed && url.hostname.split(".").includes("")) {
    return refuse("URL_NOT_CANONICAL", `host ${url.hostname} has an empty label`);
  }
  if (portText === undefined) return undefined;
  const port = portText.slice(1);
  const samePort =
    portText.startsWith(":") &&
    port !== "" &&
    (port === url.port || (url.port === "" && port === defaultPort));
  return samePort
    ? undefined
    : refuse("URL_NOT_CANONICAL", `port ${printable(portText)} is not a canonical port`);
}

function rawPathProblem(path: string): UrlCheck | undefined {
  if (path === "") return undefined;
  const segments = path.split("/").slice(1);
  for (const [i, segment] of segments.entries()) {
    if (segment === "" && i < segments.length - 1) {
      return refuse("URL_NOT_CANONICAL", "an empty path segment (//), which servers collapse");
    }
    const problem = segmentProblem(segment);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * One raw path segment, and every decoding of it down to the last escape: a server that decodes
 * twice (or a proxy, then the server) sees each level.
 */
function segmentProblem(raw: string): UrlCheck | undefined {
  const quoted = printable(raw);
  if (/%(?![0-9A-Fa-f]{2})/.test(raw))
    return refuse("URL_NOT_CANONICAL", `segment ${quoted} has a % that starts no escape`);
  let text = raw;
  let malformed = false;
  for (let depth = 0; ; depth++) {
    const problem = decodedSegmentProblem(text, quoted, depth);
    if (problem) return problem;
    if (!ESCAPE.test(text)) break;
    if (depth === MAX_DECODING_DEPTH) {
      return refuse(
        "URL_NOT_CANONICAL",
        `segment ${quoted} is encoded more than ${MAX_DECODING_DEPTH} times`,
      );
    }
    const decoded = decodeOnce(text);
    malformed ||= decoded.malformed;
    text = decoded.text;
  }
  if (malformed) return refuse("URL_NOT_CANONICAL", `segment ${quoted} decodes to bytes that are not UTF-8`);
  for (const [encoded, hex = ""] of raw.matchAll(/%([0-9A-Fa-f]{2})/g)) {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    if (/[A-Za-z0-9._~-]/.test(char)) {
      return refuse(
        "URL_NOT_CANONICAL",
        `segment ${quoted} escapes the unreserved character ${char} as ${encoded}`,
      );
    }
  }
  return undefined;
}

function decodedSegmentProblem(text: string, quoted: string, depth: number): UrlCheck | undefined {
  const as = depth === 0 ? `segment ${quoted}` : `segment ${quoted}, decoded ${depth}x,`;
  const control = CONTROL.exec(text);
  if (control) return refuse("URL_CONTROL_CHARACTER", `${as} has ${printable(control[0])}`);
  const invisible = INVISIBLE.exec(text);
  if (invisible) return refuse("URL_INVISIBLE_CHARACTER", `${as} has ${printable(invisible[0])}`);
  // Servers that apply compatibility normalization (NFKC) read full-width forms as ASCII.
  const folded = text.normalize("NFKC");
  if (/[/\\]/.test(text) || /[/\\]/.test(folded)) {
    return refuse("URL_ENCODED_SEPARATOR", `${as} contains a path separator`);
  }
  if (isDotSegment(text) || isDotSegment(folded)) return refuse("URL_DOT_SEGMENT", `${as} is a dot segment`);
  return undefined;
}

function isDotSegment(segment: string): boolean {
  return /^\.(?:$|[.;]|\s)/u.test(segment);
}

/** Queries and fragments may encode separators, but never control or invisible characters. */
function encodedTextProblem(raw: string, where: "query" | "fragment"): UrlCheck | undefined {
  let text = raw;
  for (let depth = 1; depth <= MAX_DECODING_DEPTH && ESCAPE.test(text); depth++) {
    text = decodeOnce(text).text;
    const control = CONTROL.exec(text);
    if (control)
      return refuse("URL_CONTROL_CHARACTER", `the ${where}, decoded ${depth}x, has ${printable(control[0])}`);
    const invisible = INVISIBLE.exec(text);
    if (invisible) {
      return refuse(
        "URL_INVISIBLE_CHARACTER",
        `the ${where}, decoded ${depth}x, has ${printable(invisible[0])}`,
      );
    }
  }
  return undefined;
}

/**
 * Decodes one level of escapes the way a lenient server does: overlong UTF-8 forms become the
 * character they spell (`%c0%ae` is `.`), so the checks above see it; any overlong or invalid
 * sequence also marks the result `malformed`.
 */
function decodeOnce(text: string): { text: string; malformed: boolean } {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < text.length; ) {
    if (text[i] === "%" && ESCAPE.test(text.slice(i, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const char = String.fromCodePoint(text.codePointAt(i) ?? 0);
      bytes.push(...encoder.encode(char));
      i += char.length;
    }
  }
  return decodeUtf8Leniently(bytes);
}

const MIN_CODE_POINT = [0, 0, 0x80, 0x800, 0x10000];

function decodeUtf8Leniently(bytes: readonly number[]): { text: string; malformed: boolean } {
  let text = "";
  let malformed = false;
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i] ?? 0;
    const length =
      lead < 0x80 ? 1 : lead >= 0xf8 ? 0 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
    let codePoint = length === 1 ? lead : lead & (0xff >> (length + 1));
    let read = 1;
    while (read < length && ((bytes[i + read] ?? 0) & 0xc0) === 0x80) {
      codePoint = (codePoint << 6) | ((bytes[i + read] ?? 0) & 0x3f);
      read++;
    }
    if (
      length === 0 ||
      read < length ||
      codePoint > 0x10ffff ||
      (codePoint >= 0xd800 && codePoint <= 0xdfff)
    ) {
      text += "\ufffd";
      malformed = true;
      i += 1;
      continue;
    }
    if (codePoint < (MIN_CODE_POINT[length] ?? 0)) malformed = true;
    text += String.fromCodePoint(codePoint);
    i += length;
  }
  return { text, malformed };
}
