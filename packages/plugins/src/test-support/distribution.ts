import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

export const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
export const fixturesDir = join(packageDir, "fixtures");

/**
 * A scratch distribution: a directory whose node_modules holds @pablo/plugins, @pablo/kernel and
 * typebox (linked to this workspace's built copies) and a copy of each named fixture package,
 * installed under its package.json name. Removed when the test finishes.
 */
export function makeDistribution(fixtures: readonly string[]): {
  root: string;
  packages: Record<string, string>;
} {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "pablo-dist-")));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const modules = join(root, "node_modules");
  mkdirSync(join(modules, "@pablo"), { recursive: true });
  symlinkSync(packageDir, join(modules, "@pablo", "plugins"), "dir");
  symlinkSync(
    realpathSync(join(packageDir, "node_modules", "@pablo", "kernel")),
    join(modules, "@pablo", "kernel"),
    "dir",
  );
  symlinkSync(realpathSync(join(packageDir, "node_modules", "typebox")), join(modules, "typebox"), "dir");
  const packages: Record<string, string> = {};
  for (const fixture of fixtures) {
    const source = join(fixturesDir, fixture);
    let name = `fixture-${fixture}`;
    try {
      name = (JSON.parse(readFileSync(join(source, "package.json"), "utf8")) as { name: string }).name;
    } catch {
      // A fixture with a broken package.json keeps the folder-derived name.
    }
    cpSync(source, join(modules, name), { recursive: true });
    packages[fixture] = name;
  }
  return { root, packages };
}
