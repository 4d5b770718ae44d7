import { resolve as resolvePath } from "node:path";
import { ErrorCode, type ToolErrorInfo } from "@pablo/kernel";
import { parsePath } from "./paths.js";
import { createLocalFs } from "./port/local.js";
import { resolve } from "./resolve.js";
import { lazyRoot, locate, openedRoot, type RootSet } from "./roots.js";

/**
 * The canonical absolute path of an existing directory inside the workspace, resolved component by
 * component without following links (or following them only inside, with `follow-inside`). For
 * @pablo/shell's working directory. Limit: a path string is returned, and whatever opens it later
 * resolves it again; it is a check, not a held descriptor.
 */
export async function resolveContainedDirectory(
  workspace: string,
  path: string,
  options: { symlinks?: "refuse" | "follow-inside" } = {},
): Promise<{ ok: true; path: string } | { ok: false; error: ToolErrorInfo }> {
  const io = createLocalFs();
  let opened: { handle: number; canonical: string };
  try {
    opened = await io.openRoot(workspace);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: { code: ErrorCode.NOT_FOUND, message: `cannot open the workspace: ${message}` },
    };
  }
  try {
    const parsed = parsePath(path);
    if (!parsed.ok) return parsed.failure;
    const slash = lazyRoot(io, "external", "/");
    const roots: RootSet = {
      io,
      workspace: openedRoot("workspace", opened.canonical, opened.handle, resolvePath(workspace)),
      scratch: undefined,
      external: slash,
      outsidePaths: "deny",
    };
    const located = await locate(roots, parsed.path);
    if ("ok" in located) return located;
    const resolved = await resolve(roots, located, "directory", { symlinks: options.symlinks ?? "refuse" });
    if ("ok" in resolved) return resolved;
    await resolved.release();
    return { ok: true, path: resolved.canonical };
  } finally {
    await io.close(opened.handle).catch(() => undefined);
  }
}
