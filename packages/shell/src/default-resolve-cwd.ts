import { resolveContainedDirectory } from "@pablo/fs";
import type { ResolveCwd } from "./plan-call.js";

/**
 * The working directory through @pablo/fs's containment: resolved component by component inside
 * the workspace, symbolic links refused, and only an existing directory accepted.
 */
export const defaultResolveCwd: ResolveCwd = (workspace, path) =>
  resolveContainedDirectory(workspace, path, { symlinks: "refuse" });
