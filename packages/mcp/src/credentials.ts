import type { CredentialResolver } from "@pablo/kernel";

/** Header names the transport owns; a credential may not replace them. */
const RESERVED_HEADERS = new Set([
  "accept",
  "content-type",
  "content-length",
  "host",
  "connection",
  "transfer-encoding",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

export type ResolvedSecrets =
  | {
      readonly ok: true;
      readonly values: Readonly<Record<string, string>>;
      readonly secrets: readonly string[];
    }
  | { readonly ok: false; readonly message: string };

/**
 * Resolves `VAR -> credential` (consumer `mcp.environment`) or `header -> credential`
 * (consumer `mcp.headers`) for one server, destination = the server name. Only the injected
 * resolver is asked; nothing is read from Pablo's own environment. Messages name the variable
 * and credential, never a value.
 */
export function resolveSecrets(
  resolver: CredentialResolver,
  server: string,
  kind: "environment" | "headers",
  mapping: Readonly<Record<string, string>>,
): ResolvedSecrets {
  const values: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [key, credential] of Object.entries(mapping)) {
    if (kind === "headers" && RESERVED_HEADERS.has(key.toLowerCase())) {
      return {
        ok: false,
        message: `header ${key} is set by the transport and cannot come from a credential`,
      };
    }
    const resolved = resolver.resolve(credential, { consumer: `mcp.${kind}`, destination: server });
    if (!resolved.ok) {
      const what = kind === "headers" ? `header ${key}` : `environment variable ${key}`;
      return {
        ok: false,
        message: `${what}: credential ${credential}: ${resolved.code}: ${resolved.message}`,
      };
    }
    values[key] = resolved.value;
    secrets.push(resolved.value);
  }
  return { ok: true, values, secrets };
}

/** Replaces every occurrence of each known secret (4+ characters) in strings of `value`. */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  const known = secrets.filter((s) => s.length >= 4);
  if (known.length === 0) return value;
  return scrub(value, known) as T;
}

function scrub(value: unknown, known: readonly string[]): unknown {
  if (typeof value === "string") {
    let out = value;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join("[REDACTED]");
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, known));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) out[scrub(key, known) as string] = scrub(child, known);
    return out;
  }
  return value;
}
