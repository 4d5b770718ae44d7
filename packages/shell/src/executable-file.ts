import { accessSync, constants, statSync } from "node:fs";

/** Whether `path` (links followed) is a regular file this process may execute. Never throws. */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
