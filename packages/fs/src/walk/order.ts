import type { DirEntry } from "../port/types.js";

const SURROGATE = /[\uD800-\uDFFF]/;

/** Sorts entries by the byte order of their UTF-8 names: one order on every platform and locale. */
export function byteOrder(entries: DirEntry[]): DirEntry[] {
  // UTF-16 code-unit order equals UTF-8 byte order except around surrogate pairs.
  if (!entries.some((entry) => SURROGATE.test(entry.name))) {
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const keyed = entries.map((entry) => ({ entry, key: Buffer.from(entry.name, "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return keyed.map((k) => k.entry);
}
