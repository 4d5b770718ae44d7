import type { DirEntry } from "../port/types.js";

/** Sorts entries by the byte order of their UTF-8 names: one order on every platform and locale. */
export function byteOrder(entries: DirEntry[]): DirEntry[] {
  const keyed = entries.map((entry) => ({ entry, key: Buffer.from(entry.name, "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return keyed.map((k) => k.entry);
}
