import { checkCanonicalUrl } from "@pablo/kernel";

export type RemoteUrlCheck =
  | { readonly ok: true; readonly href: string }
  | { readonly ok: false; readonly problem: string };

/**
 * Checks a configured card URL or endpoint before anything is fetched: a canonical URL (the
 * kernel's reading, so the net dimension decides on exactly what is requested), no user
 * information, no query-less surprises, `https:` always and `http:` only to a literal loopback
 * address when the remote sets `allow_loopback_http`. `localhost` is not loopback: name
 * resolution is outside Pablo's control.
 */
export function checkRemoteUrl(key: string, raw: string, allowLoopbackHttp: boolean): RemoteUrlCheck {
  const canonical = checkCanonicalUrl(raw);
  if (!canonical.ok) return { ok: false, problem: `${key} ${canonical.code}: ${canonical.reason}` };
  const url = new URL(canonical.url.href);
  if (url.username !== "" || url.password !== "")
    return { ok: false, problem: `${key} must not carry user information; use bearer with a credential` };
  if (url.hash !== "") return { ok: false, problem: `${key} must not have a fragment` };
  if (url.protocol === "https:") return { ok: true, href: canonical.url.href };
  if (url.protocol !== "http:")
    return { ok: false, problem: `${key} scheme ${url.protocol} is not supported; use https:` };
  if (!isLoopbackHost(url.hostname))
    return { ok: false, problem: `${key} uses plain http off loopback (${url.host}); use https:` };
  if (!allowLoopbackHttp)
    return {
      ok: false,
      problem: `${key} uses plain http to loopback; set allow_loopback_http = true to allow it`,
    };
  return { ok: true, href: canonical.url.href };
}

/** A literal loopback IP: 127.0.0.0/8 or [::1], as the WHATWG parser writes them. */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === "[::1]") return true;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return octets?.slice(1).every((o) => Number(o) <= 255) ?? false;
}
