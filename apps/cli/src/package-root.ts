import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The CLI package's own directory, found by walking up from this module to the `package.json`
 * named `pablo`: the same answer from tsc's output (`dist/x.js`), from the bundle's chunks
 * (`dist/chunks/x.js`) and from the sources under vitest (`src/x.ts`).
 */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The presets shipped with the CLI, as files users can read and copy. */
export const PRESET_DIR = join(PACKAGE_ROOT, "presets");

/** The CLI's version, from its package.json. */
export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string })
      .version;
  } catch {
    return "0.0.0";
  }
}

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && isThisPackage(manifest)) return dir;
    if (dirname(dir) === dir) return join(start, "..");
  }
}

function isThisPackage(manifest: string): boolean {
  try {
    return (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "pablo";
  } catch {
    return false;
  }
}
