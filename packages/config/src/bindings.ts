import { isAbsolute, join, normalize, resolve, sep } from "node:path";
import Type, { type Static } from "typebox";

/** A path that is never ambient: it resolves only through a `--bind NAME=DIR` given at run time. */
export const BindingPathSchema = Type.Object(
  {
    base: Type.Literal("binding", { description: "Paths resolve only through named bindings." }),
    name: Type.String({
      pattern: "^[A-Za-z0-9_-]{1,64}$",
      description: "Binding name, given as --bind NAME=DIR.",
    }),
    path: Type.String({ description: "Relative path inside the binding; `.` is the binding itself." }),
  },
  { additionalProperties: false },
);
export type BindingPath = Static<typeof BindingPathSchema>;

/** Named directories supplied on the command line (`--bind NAME=DIR`, `--workspace DIR`). */
export type Bindings = Readonly<Record<string, string>>;

/** Parses `NAME=DIR` arguments into absolute bindings, relative to `cwd`. */
export function parseBindings(
  specs: readonly string[],
  cwd: string,
): { bindings: Record<string, string>; errors: string[] } {
  const bindings: Record<string, string> = {};
  const errors: string[] = [];
  for (const spec of specs) {
    const at = spec.indexOf("=");
    const name = at > 0 ? spec.slice(0, at) : "";
    const dir = at > 0 ? spec.slice(at + 1) : "";
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name) || dir === "") {
      errors.push(`--bind expects NAME=DIR, got ${JSON.stringify(spec)}`);
      continue;
    }
    if (bindings[name] !== undefined) errors.push(`--bind ${name} given twice`);
    bindings[name] = resolve(cwd, dir);
  }
  return { bindings, errors };
}

/** True when a parsed TOML value is a binding reference. */
export function isBindingPath(value: unknown): value is BindingPath {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return (value as Record<string, unknown>)["base"] === "binding";
}

/**
 * Resolves a binding reference to an absolute path, or explains why it cannot: the binding is
 * missing, or the relative path is absolute or climbs out of the binding with `..`.
 */
export function resolveBindingPath(
  ref: BindingPath,
  bindings: Bindings,
): { ok: true; path: string } | { ok: false; missing: boolean; message: string } {
  const dir = bindings[ref.name];
  if (dir === undefined) {
    return {
      ok: false,
      missing: true,
      message: `binding ${JSON.stringify(ref.name)} is not given; pass --bind ${ref.name}=DIR`,
    };
  }
  if (isAbsolute(ref.path) || ref.path.includes("\0")) {
    return {
      ok: false,
      missing: false,
      message: `path ${JSON.stringify(ref.path)} must be relative to the binding`,
    };
  }
  const normalized = normalize(ref.path);
  if (normalized === ".." || normalized.startsWith(`..${sep}`)) {
    return {
      ok: false,
      missing: false,
      message: `path ${JSON.stringify(ref.path)} climbs out of binding ${ref.name}`,
    };
  }
  return { ok: true, path: normalized === "." ? dir : join(dir, normalized) };
}
