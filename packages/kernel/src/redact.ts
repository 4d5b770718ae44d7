/** What replaces a secret in previews, audit records and events. */
export const REDACTED = "[REDACTED]";

const SECRET_KEY =
  /(pass(word|wd|phrase)?|secret|token|api[-_]?key|access[-_]?key|auth(orization)?|credential|private[-_]?key|cookie|session[-_]?id|bearer)/i;

/** Shapes of real-world secrets. Each is specific enough not to eat ordinary text. */
const SECRET_VALUE_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, // OpenAI / Anthropic keys
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{40,}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key IDs
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWT
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API keys
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(?:[Bb]earer|[Bb]asic)\s+[A-Za-z0-9._~+/=-]{12,}/g,
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s@/]+@/g, // credentials in URLs
  /\b[A-Za-z0-9_]*(?:password|passwd|pwd|secret|token|api[-_]?key)\s*[=:]\s*[^\s&'",;]{4,}/gi,
];

/** Replaces secret-looking substrings of a string. */
export function redactText(text: string): string {
  let out = text;
  for (const pattern of SECRET_VALUE_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}

/**
 * A deep copy with secrets replaced: values under secret-looking keys, and secret-shaped
 * substrings of every string. Extra exact values (resolved credentials) are replaced wherever
 * they appear.
 */
export function redactValue(value: unknown, knownSecrets: readonly string[] = []): unknown {
  return redactInner(
    value,
    knownSecrets.filter((s) => s.length >= 4),
    0,
  );
}

function redactInner(value: unknown, known: readonly string[], depth: number): unknown {
  if (depth > 64) return REDACTED;
  if (typeof value === "string") {
    let out = redactText(value);
    for (const secret of known) out = out.split(secret).join(REDACTED);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => redactInner(v, known, depth + 1));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] =
        SECRET_KEY.test(key) && child !== null && typeof child !== "object"
          ? REDACTED
          : redactInner(child, known, depth + 1);
    }
    return out;
  }
  return value;
}

/** A redacted JSON preview of at most `maxChars` characters. */
export function redactedPreview(
  value: unknown,
  maxChars = 512,
  knownSecrets: readonly string[] = [],
): string {
  let text: string;
  try {
    text = JSON.stringify(redactValue(value, knownSecrets)) ?? "null";
  } catch {
    text = "[unserializable]";
  }
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}
