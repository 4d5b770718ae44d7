import { fail, type ToolFailure } from "@pablo/kernel";
import { BrowserErrorCode } from "./errors.js";

/** A page path after lexical checks: workspace-relative components, never normalized. */
export interface PagePath {
  readonly components: readonly string[];
  /** The path named a directory (`.`, `docs/`): its `index.html` is the page. */
  readonly directory: boolean;
}

export const MAX_PAGE_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;

/**
 * Splits a tool `path` into components. v1 previews workspace-relative paths only (seed 001 4b),
 * so an absolute path is refused rather than matched against the workspace; `..` is refused
 * rather than normalized, because across a link the lexical and the physical parent differ.
 */
export function parsePagePath(text: string): PagePath | ToolFailure {
  const invalid = (message: string) => fail(BrowserErrorCode.INVALID_ARGUMENT, message, { path: text });
  if (text.includes("\0")) return invalid("the path contains a NUL byte");
  if (Buffer.byteLength(text, "utf8") > MAX_PAGE_PATH_BYTES) {
    return invalid(`the path is longer than ${MAX_PAGE_PATH_BYTES} bytes`);
  }
  if (text.startsWith("/")) {
    return fail(
      BrowserErrorCode.OUTSIDE_WORKSPACE,
      "browser.preview takes a workspace-relative path; absolute paths are refused",
      { path: text },
    );
  }
  const parts = text.split("/");
  const components: string[] = [];
  let depth = 0;
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      depth -= 1;
      if (depth < 0) {
        return fail(BrowserErrorCode.OUTSIDE_WORKSPACE, `${text} leaves the workspace`, { path: text });
      }
      return invalid('".." is refused: send the path without ".." components');
    }
    if (Buffer.byteLength(part, "utf8") > MAX_NAME_BYTES) {
      return invalid(`a component of the path is longer than ${MAX_NAME_BYTES} bytes`);
    }
    depth += 1;
    components.push(part);
  }
  const last = parts[parts.length - 1];
  const directory = components.length === 0 || last === "" || last === ".";
  return { components, directory };
}

/** The URL path the loopback server answers for a page path; each component percent-encoded. */
export function urlPathOf(page: PagePath): string {
  const joined = page.components.map((c) => encodeURIComponent(c)).join("/");
  if (joined === "") return "/";
  return page.directory ? `/${joined}/` : `/${joined}`;
}
