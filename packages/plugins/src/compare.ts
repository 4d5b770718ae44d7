import { canonicalJson } from "@pablo/kernel";

/** The JSON pointer of the first place two JSON values differ, with both sides, or undefined. */
export function firstDifference(
  declared: unknown,
  actual: unknown,
  pointer = "",
): { path: string; declared: string; actual: string } | undefined {
  if (canonicalJson(declared) === canonicalJson(actual)) return undefined;
  const bothObjects =
    declared !== null &&
    actual !== null &&
    typeof declared === "object" &&
    typeof actual === "object" &&
    Array.isArray(declared) === Array.isArray(actual);
  if (bothObjects) {
    const d = declared as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(d), ...Object.keys(a)])].sort();
    for (const key of keys) {
      const found = firstDifference(
        d[key],
        a[key],
        `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`,
      );
      if (found) return found;
    }
  }
  return { path: pointer || "/", declared: show(declared), actual: show(actual) };
}

function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
