import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { NPM_NAME_PATTERN } from "./naming.js";

/**
 * Finds a plugin's package directory: a path (starting with `.` or `/`) relative to
 * `resolveFrom`, or an npm name looked up in `node_modules` folders from `resolveFrom` upward,
 * as Node does. Only the named package is looked at; nothing is scanned.
 */
export function findPackageDir(spec: string, resolveFrom: string): string | { error: string } {
  if (spec.startsWith(".") || isAbsolute(spec)) {
    const dir = resolve(resolveFrom, spec);
    return isDirectory(dir) ? realpathSync(dir) : { error: `no package directory at ${dir}` };
  }
  if (!NPM_NAME_PATTERN.test(spec)) return { error: `${JSON.stringify(spec)} is not an npm package name` };
  let dir = resolve(resolveFrom);
  for (;;) {
    const candidate = join(dir, "node_modules", spec);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    const parent = dirname(dir);
    if (parent === dir) return { error: `package ${spec} is not installed where ${resolveFrom} resolves` };
    dir = parent;
  }
}

export type PackageJson = Record<string, unknown>;

export function readPackageJson(dir: string): { ok: true; pkg: PackageJson } | { ok: false; error: string } {
  let text: string;
  try {
    text = readFileSync(join(dir, "package.json"), "utf8");
  } catch (error) {
    return { ok: false, error: `cannot read package.json: ${(error as Error).message}` };
  }
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return { ok: false, error: "package.json is not a JSON object" };
    }
    return { ok: true, pkg: value as PackageJson };
  } catch (error) {
    return { ok: false, error: `package.json is not valid JSON: ${(error as Error).message}` };
  }
}

/**
 * The ESM entry file of a package: `exports["."]` (its `import` or `default` condition), else
 * `main`, else `index.js`. The file must lie inside the package directory.
 */
export function entryFile(
  dir: string,
  pkg: PackageJson,
): { file: string; relative: string } | { error: string } {
  const relative = entrySpecifier(pkg);
  if (relative === undefined)
    return { error: 'package.json "exports" has no "." entry with an import condition' };
  const file = resolve(dir, relative);
  if (!file.startsWith(dir + sep)) return { error: `entry ${relative} lies outside the package` };
  if (!existsSync(file)) return { error: `entry ${relative} does not exist (was the package built?)` };
  const real = realpathSync(file);
  if (!real.startsWith(dir + sep)) return { error: `entry ${relative} resolves outside the package` };
  return { file: real, relative };
}

function entrySpecifier(pkg: PackageJson): string | undefined {
  const exports = pkg["exports"];
  if (exports === undefined) return typeof pkg["main"] === "string" ? pkg["main"] : "index.js";
  if (typeof exports === "string") return exports;
  if (exports === null || typeof exports !== "object") return undefined;
  const map = exports as Record<string, unknown>;
  const dot = Object.keys(map).some((k) => k.startsWith(".")) ? map["."] : map;
  return conditionTarget(dot);
}

function conditionTarget(target: unknown): string | undefined {
  if (typeof target === "string") return target;
  if (target === null || typeof target !== "object" || Array.isArray(target)) return undefined;
  const conditions = target as Record<string, unknown>;
  for (const key of ["import", "node", "default"]) {
    const found = conditionTarget(conditions[key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
