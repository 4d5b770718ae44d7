/** The space-separated union of scope strings, in first-seen order; undefined when empty. */
export function unionScopes(
  ...scopes: ReadonlyArray<string | readonly string[] | undefined>
): string | undefined {
  const seen = new Set<string>();
  for (const entry of scopes) {
    const words = typeof entry === "string" ? entry.split(/\s+/) : (entry ?? []);
    for (const word of words) if (word !== "") seen.add(word);
  }
  return seen.size === 0 ? undefined : [...seen].join(" ");
}
