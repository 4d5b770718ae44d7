import { ErrorCode } from "@pablo/kernel";
import type { ResolveCwd } from "./plan-call.js";

type ContainedDirectoryResolver = (
  workspace: string,
  path: string,
  options?: { symlinks?: "refuse" | "follow-inside" },
) => ReturnType<ResolveCwd>;

/**
 * The working directory through @pablo/fs's containment, symlinks refused. Fails closed: when the
 * installed @pablo/fs does not provide `resolveContainedDirectory`, no directory is accepted.
 */
export const defaultResolveCwd: ResolveCwd = async (workspace, path) => {
  const resolve = await loadResolver();
  if (!resolve) {
    return {
      ok: false,
      error: {
        code: ErrorCode.TOOL_FAILED,
        message: "cwd containment is unavailable: @pablo/fs does not provide resolveContainedDirectory",
      },
    };
  }
  return resolve(workspace, path, { symlinks: "refuse" });
};

const FS_PACKAGE = "@pablo/fs";

async function loadResolver(): Promise<ContainedDirectoryResolver | undefined> {
  try {
    const fs = (await import(FS_PACKAGE)) as Record<string, unknown>;
    const resolve = fs["resolveContainedDirectory"];
    return typeof resolve === "function" ? (resolve as ContainedDirectoryResolver) : undefined;
  } catch {
    return undefined;
  }
}
