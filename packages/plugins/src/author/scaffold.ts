import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PluginCode } from "../diagnostics.js";
import { NPM_NAME_PATTERN, pluginIdFromPackageName } from "../naming.js";
import {
  packageJsonTemplate,
  readmeTemplate,
  sourceTemplate,
  TSCONFIG_TEMPLATE,
  testTemplate,
} from "./templates.js";

export type ScaffoldResult =
  | { readonly ok: true; readonly dir: string; readonly pluginId: string; readonly files: readonly string[] }
  | { readonly ok: false; readonly code: ScaffoldErrorCode; readonly message: string };

/** Why a scaffold wrote nothing: a bad package name, a directory in use, or the filesystem refused. */
export type ScaffoldErrorCode =
  | typeof PluginCode.INVALID_PACKAGE_NAME
  | typeof PluginCode.DIRECTORY_NOT_EMPTY
  | typeof PluginCode.SCAFFOLD_FAILED;

/**
 * Creates a publishable plugin package in `dir` (which must be absent or empty): package.json with
 * its manifest, one example tool, its test, a README, tsconfig and .gitignore. Refuses to write
 * into a directory that has anything in it.
 */
export async function scaffoldPlugin(dir: string, name: string): Promise<ScaffoldResult> {
  if (!NPM_NAME_PATTERN.test(name)) {
    return {
      ok: false,
      code: PluginCode.INVALID_PACKAGE_NAME,
      message: `${JSON.stringify(name)} is not a valid npm package name`,
    };
  }
  let existing: string[];
  try {
    existing = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") {
      return {
        ok: false,
        code: PluginCode.SCAFFOLD_FAILED,
        message: `cannot use ${dir} (${code ?? String(error)})`,
      };
    }
    existing = [];
  }
  if (existing.length > 0)
    return { ok: false, code: PluginCode.DIRECTORY_NOT_EMPTY, message: `${dir} is not empty` };
  const pluginId = pluginIdFromPackageName(name);
  const files: Record<string, string> = {
    "package.json": `${JSON.stringify(packageJsonTemplate(name, pluginId), null, 2)}\n`,
    "tsconfig.json": `${JSON.stringify(TSCONFIG_TEMPLATE, null, 2)}\n`,
    "src/index.ts": sourceTemplate(pluginId),
    "src/index.test.ts": testTemplate(pluginId),
    "README.md": readmeTemplate(name, pluginId),
    ".gitignore": "node_modules\ndist\n*.tgz\n",
  };
  await mkdir(join(dir, "src"), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    await writeFile(join(dir, file), text, { flag: "wx" });
  }
  return { ok: true, dir, pluginId, files: Object.keys(files) };
}
