const DEFAULT_MAX = 200;

/**
 * A short, bounded text for any parsed YAML value. It walks the value with a character budget
 * instead of serializing it, so a value with many shared references (aliases) costs at most the
 * budget, never its expanded size.
 */
export function previewValue(value: unknown, max = DEFAULT_MAX): string {
  const out: string[] = [];
  let room = max;
  /** Emits what fits of `text`; true when all of it did. */
  const emit = (text: string): boolean => {
    const part = text.length > room ? text.slice(0, room) : text;
    out.push(part);
    room -= part.length;
    return part.length === text.length;
  };
  const walk = (node: unknown, depth: number): boolean => {
    if (node === null || typeof node !== "object") {
      return emit(typeof node === "string" ? (depth === 0 ? node : JSON.stringify(node)) : String(node));
    }
    if (depth > 8) return emit("…");
    const entries: [string | undefined, unknown][] = Array.isArray(node)
      ? node.map((v) => [undefined, v])
      : Object.entries(node);
    if (!emit(Array.isArray(node) ? "[" : "{")) return false;
    let first = true;
    for (const [key, child] of entries) {
      if (!first && !emit(", ")) return false;
      first = false;
      if (key !== undefined && !emit(`${key}: `)) return false;
      if (!walk(child, depth + 1)) return false;
    }
    return emit(Array.isArray(node) ? "]" : "}");
  };
  const complete = walk(value, 0);
  const text = out.join("").replace(/\s+/g, " ");
  return complete ? text : `${text.slice(0, max - 1)}…`;
}
