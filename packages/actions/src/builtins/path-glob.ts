import { RE2JS } from "re2js";

/** A relative path glob split into components: `**` for any depth, otherwise an RE2 name matcher. */
export type GlobComponent =
  | { readonly kind: "any-depth" }
  | { readonly kind: "name"; readonly pattern: RE2JS };

export const MAX_GLOB_COMPONENTS = 16;

/**
 * Parses a glob that must stay inside its root: relative, no empty, `.` or `..` component, no
 * backslash or NUL. Within a component `*` and `?` match within the name and `[...]` a class;
 * everything else is literal. Names are matched with RE2, so no glob can take exponential time.
 */
export function parsePathGlob(
  glob: string,
): { ok: true; components: GlobComponent[] } | { ok: false; problem: string } {
  if (glob.startsWith("/")) return { ok: false, problem: "a path glob is relative to a log root" };
  if (/[\\\0]/.test(glob)) return { ok: false, problem: "a path glob may not contain a backslash or NUL" };
  const parts = glob.split("/");
  if (parts.length > MAX_GLOB_COMPONENTS)
    return { ok: false, problem: "a path glob has at most 16 components" };
  const components: GlobComponent[] = [];
  for (const part of parts) {
    if (part === "" || part === "." || part === "..")
      return { ok: false, problem: `a path glob may not contain ${JSON.stringify(part)} components` };
    if (part === "**") {
      components.push({ kind: "any-depth" });
      continue;
    }
    const source = componentPattern(part);
    if (source === undefined) return { ok: false, problem: `unbalanced [ in ${JSON.stringify(part)}` };
    components.push({ kind: "name", pattern: RE2JS.compile(source) });
  }
  return { ok: true, components };
}

function componentPattern(part: string): string | undefined {
  let out = "";
  for (let i = 0; i < part.length; i++) {
    const c = part[i] ?? "";
    if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const close = part.indexOf("]", i + 2);
      if (close < 0) return undefined;
      let body = part.slice(i + 1, close);
      const negate = body.startsWith("!");
      if (negate) body = body.slice(1);
      out += `[${negate ? "^" : ""}${body.replace(/[\\\]^[]/g, (ch) => `\\${ch}`)}]`;
      i = close;
    } else out += RE2JS.quote(c);
  }
  return out;
}
