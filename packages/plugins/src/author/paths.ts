import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { RootKind } from "@pablo/kernel";

export interface AuthorRoots {
  /** Absolute workspace root; relative paths resolve against it. */
  readonly workspace: string;
  /** Absolute scratch root, when the host has one. */
  readonly scratch?: string;
}

/**
 * The canonical absolute path of `input` (relative to the workspace) and which root it lands in.
 * Symlinks in the existing part of the path are resolved, so the access the kernel decides on is
 * where the files really go.
 */
export function locate(roots: AuthorRoots, input: string): { path: string; root: RootKind } {
  const path = realpathOfExistingPrefix(resolve(roots.workspace, input));
  const under = (base: string | undefined) => {
    if (!base) return false;
    const root = realpathOfExistingPrefix(resolve(base));
    return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
  };
  const root: RootKind = under(roots.workspace) ? "workspace" : under(roots.scratch) ? "scratch" : "external";
  return { path, root };
}

function realpathOfExistingPrefix(path: string): string {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = realpathSync(current);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}
