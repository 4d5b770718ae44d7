import { ErrorCode, fail, type ToolFailure } from "@pablo/kernel";

/** A tool path after lexical checks: never normalized, only split. */
export interface ParsedPath {
  readonly absolute: boolean;
  readonly components: readonly string[];
  /** The text ended in `/`: the caller named a directory. */
  readonly trailingSlash: boolean;
}

export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;

/**
 * Splits a tool path into components, refusing rather than normalizing anything whose meaning
 * could differ between a lexical and a physical reading: `..` anywhere (across a link the two
 * disagree, and a model can send the normalized path itself), NUL bytes, a leading `//` (its
 * meaning is implementation-defined), over-long names and paths. `.` components and repeated
 * slashes inside the path mean the same thing either way and are dropped.
 */
export function parsePath(
  text: string,
): { ok: true; path: ParsedPath } | { ok: false; failure: ToolFailure } {
  const refuse = (message: string) => ({
    ok: false as const,
    failure: fail(ErrorCode.INVALID_ARGUMENT, message, { path: printable(text) }),
  });
  if (text === "") return refuse('the path is empty; use "." for the workspace root');
  if (text.includes("\0")) return refuse("the path contains a NUL byte");
  if (Buffer.byteLength(text, "utf8") > MAX_PATH_BYTES) {
    return refuse(`the path is longer than ${MAX_PATH_BYTES} bytes`);
  }
  if (text.startsWith("//")) return refuse('a path may not start with "//"');
  const absolute = text.startsWith("/");
  const parts = (absolute ? text.slice(1) : text).split("/");
  const trailingSlash = parts.length > 1 && parts[parts.length - 1] === "";
  const components: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      return refuse(
        '".." is refused: paths are never normalized across links; send the path without ".." components',
      );
    }
    if (Buffer.byteLength(part, "utf8") > MAX_NAME_BYTES) {
      return refuse(
        `the component ${JSON.stringify(part.slice(0, 40))}... is longer than ${MAX_NAME_BYTES} bytes`,
      );
    }
    components.push(part);
  }
  return { ok: true, path: { absolute, components, trailingSlash } };
}

/** Lexical normalization of an absolute link target against the real directory that holds the link. */
export function joinLinkTarget(directory: readonly string[], target: string): string[] | undefined {
  if (target.includes("\0")) return undefined;
  const out = target.startsWith("/") ? [] : [...directory];
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    // The directory part is canonical (every component was opened as a real directory), so
    // a lexical ".." is its physical parent.
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out;
}

/** Splits a canonical absolute path into components. */
export function componentsOf(canonical: string): string[] {
  return canonical.split("/").filter((c) => c !== "");
}

/** Joins components under an absolute root. */
export function under(root: string, components: readonly string[]): string {
  if (components.length === 0) return root;
  return root === "/" ? `/${components.join("/")}` : `${root}/${components.join("/")}`;
}

/** `components` starts with `prefix`. */
export function startsWith(components: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= components.length && prefix.every((c, i) => components[i] === c);
}

function printable(text: string): string {
  const shown = text.length > 200 ? `${text.slice(0, 200)}...` : text;
  return shown.replaceAll("\0", "\\0");
}
