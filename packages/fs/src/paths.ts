import { ErrorCode, fail, type ToolFailure } from "@pablo/kernel";

/** A tool path after lexical checks and lexical `..` normalization. */
export interface ParsedPath {
  readonly absolute: boolean;
  /** Components after `.`, empty components and `..` were applied lexically. */
  readonly components: readonly string[];
  /**
   * For a relative path: how many leading `..` climb above the workspace (0 when it stays inside).
   * Always 0 for an absolute path, where `..` at `/` stays at `/`.
   */
  readonly up: number;
  /**
   * The text ended in `/`, `/.` or `/..`: the caller named a directory, so the leaf must be one
   * (`README.md/.` and `README.md/x/..` are never the file `README.md`).
   */
  readonly namesDirectory: boolean;
}

export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;

/**
 * Splits a tool path into components and applies `..` lexically, as seed 001 4a and 4b specify:
 * `..` removes the component before it without opening it, and a relative path whose `..` climbs
 * above the workspace becomes an outside path, decided like the equivalent absolute one. What is
 * left is then resolved component by component without following links, so normalization can never
 * reach more than its result names. Refused: NUL bytes, a leading `//` (its meaning is
 * implementation-defined), over-long names and paths, the empty path.
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
  const last = parts[parts.length - 1];
  const namesDirectory = parts.length > 1 && (last === "" || last === "." || last === "..");
  const components: string[] = [];
  let up = 0;
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (components.length > 0) components.pop();
      else if (!absolute) up++;
      continue;
    }
    if (Buffer.byteLength(part, "utf8") > MAX_NAME_BYTES) {
      return refuse(
        `the component ${JSON.stringify(part.slice(0, 40))}... is longer than ${MAX_NAME_BYTES} bytes`,
      );
    }
    components.push(part);
  }
  return { ok: true, path: { absolute, components, up, namesDirectory } };
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
