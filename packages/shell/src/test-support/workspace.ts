import { lstatSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { ErrorCode } from "@pablo/kernel";
import { onTestFinished } from "vitest";
import type { ResolveCwd } from "../index.js";

/** A fresh canonical temporary directory, removed when the test finishes. */
export function useWorkspace(prefix = "pablo-shell-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A strict stand-in for @pablo/fs's containment used where a test needs one before that package
 * is built: lexical containment, then every component checked with lstat, symlinks refused.
 */
export const strictResolveCwd: ResolveCwd = async (workspace, path) => {
  const target = resolve(workspace, path);
  const rel = relative(workspace, target);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    return {
      ok: false,
      error: { code: ErrorCode.OUTSIDE_WORKSPACE, message: `${path} is outside the workspace` },
    };
  }
  let current = workspace;
  for (const part of rel === "" ? [] : rel.split("/")) {
    current = join(current, part);
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(current);
    } catch {
      return { ok: false, error: { code: ErrorCode.NOT_FOUND, message: `${path} does not exist` } };
    }
    if (stat.isSymbolicLink()) {
      return {
        ok: false,
        error: { code: ErrorCode.SYMLINK_REFUSED, message: `${path} crosses a symbolic link` },
      };
    }
    if (!stat.isDirectory()) {
      return { ok: false, error: { code: ErrorCode.SPECIAL_FILE, message: `${path} is not a directory` } };
    }
  }
  return { ok: true, path: current };
};
