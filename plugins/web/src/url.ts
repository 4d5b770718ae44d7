import { isIP } from "node:net";

export type UrlVerdict =
  | { readonly ok: true; readonly href: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Parses and normalizes a URL once, with the WHATWG parser that Node's HTTP client and the
 * kernel's network matcher also use; the returned `href` is both what policy decides on and
 * what is requested. Refuses anything but https (and http to loopback when allowed), userinfo,
 * and loopback hosts unless allowed. The fragment is dropped: it is never sent.
 */
export function normalizeFetchUrl(input: string, allowLoopback: boolean): UrlVerdict {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: "not an absolute URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, reason: `scheme ${url.protocol} is not fetched; use https` };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, reason: "URLs with user information (user:password@) are refused" };
  }
  url.hash = "";
  const loopback = isLoopbackHost(url.hostname);
  if (loopback && !allowLoopback)
    return { ok: false, reason: `loopback host ${url.hostname} is not allowed` };
  if (url.protocol === "http:" && !loopback)
    return { ok: false, reason: "only https is fetched (http only to an allowed loopback host)" };
  return { ok: true, href: url.href };
}

/** A WHATWG-serialized hostname that names this machine: localhost, 127.0.0.0/8, ::1, 0.0.0.0, ::. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "")
    .toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  return isLoopbackAddress(host);
}

/** An IP address (as `dns.lookup` reports it) that reaches this machine. */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.toLowerCase();
  if (isIP(ip) === 4) return ip.startsWith("127.") || ip === "0.0.0.0";
  if (isIP(ip) === 6) {
    if (ip === "::1" || ip === "::") return true;
    // IPv4-mapped forms, as dotted quads or as the hex WHATWG serializes (::ffff:7f00:1).
    const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):[0-9a-f]{1,4})$/.exec(ip);
    if (mapped?.[1]) return isLoopbackAddress(mapped[1]);
    if (mapped?.[2])
      return Number.parseInt(mapped[2], 16) >> 8 === 127 || Number.parseInt(mapped[2], 16) === 0;
  }
  return false;
}
