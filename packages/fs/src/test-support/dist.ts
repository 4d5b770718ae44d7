import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * The built entry of this package, rebuilt first when any source file is newer: child processes
 * run the JavaScript a user would install, not the TypeScript vitest transforms.
 */
export function freshDist(): string {
  const entry = join(PACKAGE_DIR, "dist", "index.js");
  if (!existsSync(entry) || newestSource(join(PACKAGE_DIR, "src")) > statSync(entry).mtimeMs) {
    // The workspace root provides tsc, as it does for `pnpm build`.
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
      cwd: PACKAGE_DIR,
      stdio: "inherit",
    });
  }
  return entry;
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (!entry.name.endsWith(".test.ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * One ES module holding this package's built entry and the kernel, for child processes that must
 * start fast (a crash trial starts hundreds): loading one file instead of the ~700 modules of the
 * dependency graph cuts a child's start-up CPU time about sixfold. It is bundled with the esbuild
 * that the workspace's tsx uses; when that is unavailable the caller imports the entries directly.
 */
export async function childBundle(outDir: string): Promise<string | undefined> {
  const dist = freshDist();
  let build: ((options: Record<string, unknown>) => Promise<unknown>) | undefined;
  try {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"));
    ({ build } = (await import(pathToFileURL(fromTsx.resolve("esbuild")).href)) as { build: typeof build });
  } catch {
    return undefined;
  }
  if (!build) return undefined;
  const outfile = join(outDir, "fs-bundle.mjs");
  await build({
    stdin: {
      contents: `export * from ${JSON.stringify(dist)}; export { createCatalog, createKernel } from "@pablo/kernel";`,
      resolveDir: PACKAGE_DIR,
      loader: "js",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
  });
  return outfile;
}
