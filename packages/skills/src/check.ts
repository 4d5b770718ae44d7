import { basename, dirname, join, resolve } from "node:path";
import { SkillCode, TOLERATED_AT_LOAD } from "./codes.js";
import { summaryOf } from "./discover.js";
import { DEFAULT_MAX_SKILL_BYTES, RECOMMENDED_MAX_LINES, SKILL_FILE } from "./limits.js";
import { diagnostic, readSkillPackage, type SkillRead } from "./read-skill.js";
import { isRefusal, listDirectory, type OpenDirectory, openDirectory } from "./safe-fs.js";
import type { SkillCheckReport, SkillCheckResult, SkillDiagnostic } from "./types.js";

export interface CheckOptions {
  /** Largest SKILL.md that loads (`max_skill_bytes`); check with the deployment's value. */
  readonly maxSkillBytes?: number;
}

const MAX_CHECKED_ENTRIES = 10_000;

/**
 * Checks one skill package, or a folder of packages, against the Agent Skills specification and
 * Pablo's loading rules, exactly as discovery and activation would read them, but strictly: the
 * mistakes loading tolerates (`TOLERATED_AT_LOAD`) are errors here, under the same codes. `dir` may also be
 * a SKILL.md path. Every diagnostic names the file, the field and line where it can, what is
 * wrong and how to fix it. `valid` is false when any package has an error, a folder-level error
 * was found, or no package was found at all: usable as a CI gate. Never throws for content.
 */
export async function checkSkills(dir: string, options: CheckOptions = {}): Promise<SkillCheckReport> {
  const maxSkillBytes = options.maxSkillBytes ?? DEFAULT_MAX_SKILL_BYTES;
  let target = resolve(dir);
  if (basename(target) === SKILL_FILE) target = dirname(target);
  const opened = await openDirectory(target);
  if (isRefusal(opened)) return folderFailure(target, opened.refused, opened.detail);
  try {
    const entries = await listDirectory(opened, MAX_CHECKED_ENTRIES);
    if (isRefusal(entries)) return folderFailure(target, entries.refused, entries.detail);
    if (entries.some((e) => e.name === SKILL_FILE)) {
      const result = await checkPackage(
        opened.path,
        basename(opened.path),
        basename(dirname(opened.path)),
        maxSkillBytes,
      );
      if (result) return report(opened.path, [result], []);
      return report(
        opened.path,
        [],
        [
          diagnostic(
            join(opened.path, SKILL_FILE),
            SkillCode.READ_FAILED,
            "SKILL.md disappeared while it was checked",
            "check again",
          ),
        ],
      );
    }
    return await checkFolder(opened, entries, maxSkillBytes);
  } finally {
    await opened.close();
  }
}

async function checkFolder(
  opened: OpenDirectory,
  entries: readonly { name: string; kind: string }[],
  maxSkillBytes: number,
): Promise<SkillCheckReport> {
  const results: SkillCheckResult[] = [];
  const folderDiagnostics: SkillDiagnostic[] = [];
  if (entries.length > MAX_CHECKED_ENTRIES) {
    folderDiagnostics.push(
      diagnostic(
        opened.path,
        SkillCode.TOO_MANY_ENTRIES,
        `the folder holds more than ${MAX_CHECKED_ENTRIES} entries`,
        "check a folder that holds only skill packages",
      ),
    );
    return report(opened.path, results, folderDiagnostics);
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(opened.path, entry.name);
    if (entry.kind === "symlink") {
      folderDiagnostics.push({
        ...diagnostic(
          path,
          SkillCode.SYMLINK_REFUSED,
          `${JSON.stringify(entry.name)} is a symbolic link; discovery refuses links`,
          "put the package folder itself here instead of a link to it",
        ),
        skill: entry.name,
      });
    } else if (entry.kind === "directory") {
      const result = await checkPackage(path, entry.name, basename(opened.path), maxSkillBytes, opened);
      if (result) results.push(result);
      else folderDiagnostics.push(await notASkill(path, entry.name));
    }
  }
  if (results.length === 0) {
    folderDiagnostics.push(
      diagnostic(
        opened.path,
        SkillCode.NO_SKILLS,
        "no skill package here: neither this folder nor any folder in it has a SKILL.md",
        "point the check at a skill folder (one with SKILL.md) or at the folder that holds skill folders",
      ),
    );
  }
  return report(opened.path, results, folderDiagnostics);
}

async function checkPackage(
  path: string,
  folder: string,
  rootName: string,
  maxSkillBytes: number,
  parent?: OpenDirectory,
): Promise<SkillCheckResult | undefined> {
  // First exactly what discovery reads (the frontmatter prefix), then what activation reads.
  const head = await readSkillPackage(path, folder, { depth: "frontmatter", maxSkillBytes }, parent);
  if (head.absent) return undefined;
  if (!head.fields) return result(head, head.diagnostics);
  const root = safeRootName(rootName);
  const full = await readSkillPackage(path, folder, { depth: "full", maxSkillBytes }, parent);
  if (full.absent) return undefined;
  const tooLarge = full.diagnostics.find((d) => d.code === SkillCode.SKILL_TOO_LARGE);
  if (tooLarge) {
    // Listed but not activated as it is: the frontmatter's findings, with activation's refusal.
    const others = head.diagnostics.filter((d) => d.code !== SkillCode.SKILL_TOO_LARGE);
    return { ...result(head, [tooLarge, ...others]), skill: summaryOf(root, head, head.fields) };
  }
  const diagnostics = [...full.diagnostics];
  if (!full.fields || full.body === undefined) return result(full, diagnostics);
  const lines = countLines(full.body);
  if (full.body.trim().length === 0) {
    diagnostics.push({
      ...diagnostic(
        full.file,
        SkillCode.EMPTY_BODY,
        "the body after the frontmatter is empty: activation would add no instructions",
        "write the instructions below the closing `---`",
      ),
      severity: "warning",
      ...(full.bodyLine === undefined ? {} : { line: full.bodyLine }),
    });
  } else if (lines > RECOMMENDED_MAX_LINES) {
    diagnostics.push({
      ...diagnostic(
        full.file,
        SkillCode.LONG_BODY,
        `the body is ${lines} lines; the specification recommends under ${RECOMMENDED_MAX_LINES}`,
        "move detailed reference material into files beside SKILL.md (references/) and point to them",
      ),
      severity: "warning",
    });
  }
  return {
    ...result(full, diagnostics),
    skill: summaryOf(root, full, full.fields),
    instructionBytes: Buffer.byteLength(full.body, "utf8"),
    lines,
  };
}

/** The verdict on one package, with the tolerated mistakes made errors: the strict checker. */
function result(read: SkillRead, found: readonly SkillDiagnostic[]): SkillCheckResult {
  const diagnostics = found.map(
    (d): SkillDiagnostic => ({
      ...d,
      ...(TOLERATED_AT_LOAD.has(d.code as SkillCode) ? { severity: "error" } : {}),
      skill: d.skill ?? read.folder,
    }),
  );
  return {
    dir: read.dir,
    file: read.file,
    valid: !diagnostics.some((d) => d.severity === "error"),
    diagnostics,
  };
}

async function notASkill(path: string, folder: string): Promise<SkillDiagnostic> {
  const opened = await openDirectory(path);
  let variant: string | undefined;
  if (!isRefusal(opened)) {
    const entries = await listDirectory(opened, 1000);
    await opened.close();
    if (!isRefusal(entries)) variant = entries.find((e) => e.name.toLowerCase() === "skill.md")?.name;
  }
  return {
    ...diagnostic(
      path,
      SkillCode.NOT_A_SKILL,
      variant
        ? `${JSON.stringify(folder)} has ${variant} but not SKILL.md; the name is case-sensitive`
        : `${JSON.stringify(folder)} has no SKILL.md, so it is not a skill package and discovery ignores it`,
      variant ? `rename ${variant} to SKILL.md` : "add a SKILL.md if this folder is meant to be a skill",
    ),
    severity: variant ? "error" : "warning",
    skill: folder,
  };
}

function folderFailure(path: string, refused: string, detail: string): SkillCheckReport {
  const d =
    refused === "symlink"
      ? diagnostic(
          path,
          SkillCode.SYMLINK_REFUSED,
          "the folder is a symbolic link; discovery refuses links",
          "check the real folder",
        )
      : refused === "missing"
        ? diagnostic(path, SkillCode.ROOT_MISSING, "the folder does not exist", "check the path")
        : refused === "not-directory"
          ? diagnostic(
              path,
              SkillCode.ROOT_INVALID,
              "not a folder",
              "point the check at a skill folder or a folder of skill folders",
            )
          : diagnostic(
              path,
              SkillCode.READ_FAILED,
              `the folder could not be read: ${detail}`,
              "check its permissions",
            );
  return report(path, [], [d]);
}

function report(dir: string, results: SkillCheckResult[], diagnostics: SkillDiagnostic[]): SkillCheckReport {
  const valid =
    results.length > 0 && results.every((r) => r.valid) && !diagnostics.some((d) => d.severity === "error");
  return { dir, valid, results, diagnostics };
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  const lines = text.split("\n").length;
  return text.endsWith("\n") ? lines - 1 : lines;
}

function safeRootName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "");
  return safe.length > 0 ? safe.slice(0, 64) : "local";
}
