import type { A2aOptions } from "./options-schema.js";
import { checkRemoteUrl, isLoopbackHost } from "./remote-url.js";

/** A credential use the distribution must declare, in `@pablo/config`'s reference shape. */
export interface A2aCredentialReference {
  readonly credential: string;
  readonly consumer: "a2a.bearer" | "a2a.serve";
  readonly destination: string;
  readonly keyPath: string;
}

/** The `serve` bearer's destination: it never leaves the process, it is compared with callers' tokens. */
export const SERVE_DESTINATION = "a2a.serve";

/**
 * The credential references `[options.a2a]` makes: each remote's bearer (consumer
 * `a2a.bearer`, destination the endpoint in its canonical spelling, which is what the tool
 * resolves) and the serve bearer (consumer `a2a.serve`).
 */
export function a2aCredentialReferences(section: A2aOptions | undefined): A2aCredentialReference[] {
  const refs: A2aCredentialReference[] = [];
  for (const [name, remote] of Object.entries(section?.remotes ?? {})) {
    if (remote.bearer === undefined) continue;
    refs.push({
      credential: remote.bearer,
      consumer: "a2a.bearer",
      destination: canonicalOr(remote.endpoint),
      keyPath: `options.a2a.remotes.${name}.bearer`,
    });
  }
  if (section?.serve?.bearer !== undefined)
    refs.push({
      credential: section.serve.bearer,
      consumer: "a2a.serve",
      destination: SERVE_DESTINATION,
      keyPath: "options.a2a.serve.bearer",
    });
  return refs;
}

export interface A2aLintFinding {
  readonly kind: "plain-http" | "bearer-destination" | "invalid-url";
  readonly where: string;
  readonly message: string;
}

/**
 * `pablo policy check` for remotes: plain http off loopback (or without the opt-in), URLs the
 * kernel would refuse, and an `a2a.bearer` credential whose fixed destination matches no
 * configured endpoint. A credential nothing uses is `@pablo/config`'s `unused-credential`
 * finding, once the distribution declares {@link a2aCredentialReferences}.
 */
export function lintA2a(
  section: A2aOptions | undefined,
  credentials: Readonly<Record<string, { readonly consumer: string; readonly destination?: string }>>,
): A2aLintFinding[] {
  const findings: A2aLintFinding[] = [];
  const remotes = Object.entries(section?.remotes ?? {});
  const endpoints = new Set(remotes.map(([, r]) => canonicalOr(r.endpoint)));
  for (const [name, remote] of remotes) {
    for (const key of ["card_url", "endpoint"] as const) {
      const where = `options.a2a.remotes.${name}.${key}`;
      const raw = remote[key];
      const checked = checkRemoteUrl(key, raw, remote.allow_loopback_http === true);
      if (checked.ok) continue;
      const plain = raw.startsWith("http://");
      const offLoopback = plain && !isLoopbackHost(safeHost(raw));
      findings.push({
        kind: plain ? "plain-http" : "invalid-url",
        where,
        message: offLoopback ? `${raw} is plain http off loopback; use https:` : checked.problem,
      });
    }
  }
  for (const [name, credential] of Object.entries(credentials)) {
    if (credential.consumer !== "a2a.bearer") continue;
    const where = `credentials.${name}`;
    if (credential.destination !== undefined && !endpoints.has(canonicalOr(credential.destination)))
      findings.push({
        kind: "bearer-destination",
        where,
        message: `a2a.bearer credential ${name} is for ${credential.destination}, which is no configured endpoint`,
      });
  }
  return findings;
}

function canonicalOr(raw: string): string {
  try {
    return new URL(raw).href;
  } catch {
    return raw;
  }
}

function safeHost(raw: string): string {
  try {
    return new URL(raw).hostname;
  } catch {
    return "";
  }
}
