import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { basename, dirname } from "node:path";
import { CLEAN_PATH } from "../index.js";

/** Where the real shell finds `name` on the clean PATH, in the canonical-directory form rules use. */
export function which(name: string): string {
  // which(1), not `command -v`, which answers with the builtin for echo, true and the like.
  const found = execFileSync("which", [name], { env: { PATH: CLEAN_PATH }, encoding: "utf8" }).trim();
  return `${realpathSync(dirname(found))}/${basename(found)}`;
}
