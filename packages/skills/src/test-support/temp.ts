import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

/** The package folder (packages/skills). */
export const PACKAGE_DIR = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
/** The committed fixtures. */
export const FIXTURES = join(PACKAGE_DIR, "fixtures");
/** The monorepo root. */
export const REPO_ROOT = dirname(dirname(PACKAGE_DIR));

/** A fresh canonical temporary folder, removed when the test finishes. */
export function useTempDir(prefix = "pablo-skills-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `root/folder/SKILL.md` (and any extra files) and returns the package folder. */
export function writeSkill(
  root: string,
  folder: string,
  content: string,
  extra: Record<string, string> = {},
): string {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), content);
  for (const [path, text] of Object.entries(extra)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** A minimal valid SKILL.md. */
export function skillText(
  name: string,
  description = `The ${name} skill.`,
  body = `Instructions of ${name}.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}
