/**
 * Durations and sizes as catalogs write them: `10s`, `500ms`, `2m`; `64KB`, `1MiB`, `4096`.
 * Decimal and binary multiples are both 1024-based: a catalog author writing `64KB` means a
 * budget, not a disk vendor's kilobyte, and the smaller reading would be the surprise.
 */
const DURATION = /^([0-9]{1,9})(ms|s|m|h)?$/;
const SIZE = /^([0-9]{1,12})(B|KB|KiB|MB|MiB|GB|GiB)?$/;

const DURATION_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_BYTES: Record<string, number> = {
  B: 1,
  KB: 1024,
  KiB: 1024,
  MB: 1024 ** 2,
  MiB: 1024 ** 2,
  GB: 1024 ** 3,
  GiB: 1024 ** 3,
};

/** Milliseconds of a duration (a bare number is seconds), or undefined when it is not one. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) && value > 0 ? value * 1000 : undefined;
  const match = DURATION.exec(value.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (DURATION_MS[match[2] ?? "s"] ?? 1000);
  return ms > 0 ? ms : undefined;
}

/** Bytes of a size (a bare number is bytes), or undefined when it is not one. */
export function parseSize(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) && value > 0 ? value : undefined;
  const match = SIZE.exec(value.trim());
  if (!match) return undefined;
  const bytes = Number(match[1]) * (SIZE_BYTES[match[2] ?? "B"] ?? 1);
  return bytes > 0 ? bytes : undefined;
}
