import { createHash } from "node:crypto";

/** What every provider name must match: the intersection of the model providers' rules. */
export const PROVIDER_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_PROVIDER_NAME = 64;
const HASH_LENGTH = 8;

/**
 * The provider name a model sees for a native name. Deterministic: `.` and `/` become `_`, so
 * `fs.read` is `fs_read` and `mcp/records/read_evidence` is `mcp_records_read_evidence`. When
 * any other character had to be replaced, or the name would exceed 64 characters, the name is
 * cut and a hash of the native name is appended, so two different native names do not meet by
 * accident. The catalog keeps the reverse map and refuses the collisions that remain.
 */
export function providerNameFor(nativeName: string): string {
  const simple = nativeName.replace(/[./]/g, "_");
  const safe = simple.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (safe === simple && safe.length > 0 && safe.length <= MAX_PROVIDER_NAME) return safe;
  return withHashSuffix(safe, nativeName);
}

/** Cuts `base` so that `base_<hash of key>` fits in 64 characters. */
export function withHashSuffix(base: string, key: string): string {
  const hash = createHash("sha256").update(key).digest("hex").slice(0, HASH_LENGTH);
  const room = MAX_PROVIDER_NAME - HASH_LENGTH - 1;
  return `${base.slice(0, room)}_${hash}`;
}

/** Native names: dot- or slash-separated segments of printable characters, at most 256 long. */
export function isValidNativeName(name: string): boolean {
  return name.length > 0 && name.length <= 256 && /^[\x21-\x7e]+$/.test(name);
}
