import { isAbsolute, join } from "node:path";
import { SkillCode } from "./codes.js";
import {
  DEFAULT_MAX_ENTRIES_PER_ROOT,
  DEFAULT_MAX_SKILL_BYTES,
  ROOT_NAME_PATTERN,
  SKILL_FILE,
} from "./limits.js";
import { mapLimit } from "./map-limit.js";
import { diagnostic, readSkillPackage, type SkillRead } from "./read-skill.js";
import { isRefusal, listDirectory, openDirectory } from "./safe-fs.js";
import type { Discovery, SkillDiagnostic, SkillRoot, SkillSummary } from "./types.js";
import type { SkillFields } from "./validate.js";

/** Package reads in flight per root; results keep name order whatever finishes first. */
const READ_CONCURRENCY = 8;

export interface DiscoverOptions {
  /**
   * `max_skill_bytes`. A larger SKILL.md is still listed (only its frontmatter is read), with a
   * `SKILL_TOO_LARGE` warning: activation decides what happens to it.
   */
  readonly maxSkillBytes?: number;
  /** Entries a root may hold before it is refused as a whole. */
  readonly maxEntriesPerRoot?: number;
}

/**
 * Finds the skills in the configured roots, and only there: each root's child folders that hold
 * a SKILL.md, reading each file's frontmatter and nothing after it. Roots are searched in the
 * order given, packages in name order, so the result is deterministic. A broken skill is a
 * diagnostic with its path and reason; nothing throws for bad content, and a skill never loads
 * under a name other than the one it declares. A tolerant reader: mistakes that grant nothing
 * (`TOLERATED_AT_LOAD`) are warnings and the skill loads; `checkSkills` reports them as errors. Links at a root, a package folder or SKILL.md are
 * refused; dot-folders are skipped; nothing is installed or run.
 */
export async function discoverSkills(
  roots: readonly SkillRoot[],
  options: DiscoverOptions = {},
): Promise<Discovery> {
  const maxSkillBytes = options.maxSkillBytes ?? DEFAULT_MAX_SKILL_BYTES;
  const maxEntries = options.maxEntriesPerRoot ?? DEFAULT_MAX_ENTRIES_PER_ROOT;
  const skills: SkillSummary[] = [];
  const diagnostics: SkillDiagnostic[] = [];
  const seen = new Set<string>();
  for (const root of roots) {
    const problem = rootProblem(root, seen);
    seen.add(root.name);
    if (problem) {
      diagnostics.push(problem);
      continue;
    }
    await discoverRoot(root, maxSkillBytes, maxEntries, skills, diagnostics);
  }
  diagnostics.push(...shadowWarnings(skills));
  return { skills, diagnostics };
}

/** Builds the summary of a package whose frontmatter is valid. */
export function summaryOf(root: string, read: SkillRead, fields: SkillFields): SkillSummary {
  return {
    id: `${root}/${fields.name}`,
    root,
    name: fields.name,
    description: fields.description,
    dir: read.dir,
    file: read.file,
    bytes: read.size ?? 0,
    frontmatterHash: read.frontmatterHash ?? "",
    ...(fields.license === undefined ? {} : { license: fields.license }),
    ...(fields.compatibility === undefined ? {} : { compatibility: fields.compatibility }),
    ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
    ...(fields.allowedTools === undefined ? {} : { allowedTools: fields.allowedTools }),
    ...(fields.otherFields === undefined ? {} : { otherFields: fields.otherFields }),
  };
}

async function discoverRoot(
  root: SkillRoot,
  maxSkillBytes: number,
  maxEntries: number,
  skills: SkillSummary[],
  diagnostics: SkillDiagnostic[],
): Promise<void> {
  const opened = await openDirectory(root.dir);
  if (isRefusal(opened)) {
    diagnostics.push(rootRefused(root, opened.refused, opened.detail));
    return;
  }
  try {
    const entries = await listDirectory(opened, maxEntries);
    if (isRefusal(entries)) {
      diagnostics.push(rootRefused(root, entries.refused, entries.detail));
      return;
    }
    if (entries.length > maxEntries) {
      diagnostics.push({
        ...diagnostic(
          opened.path,
          SkillCode.TOO_MANY_ENTRIES,
          `root ${root.name} holds more than ${maxEntries} entries; none of its skills were loaded`,
          "point the root at a folder that holds only skill packages",
        ),
        root: root.name,
      });
      return;
    }
    const packages = entries.filter((e) => e.kind === "directory" && !e.name.startsWith("."));
    const reads = await mapLimit(packages, READ_CONCURRENCY, (entry) =>
      readSkillPackage(
        join(opened.path, entry.name),
        entry.name,
        { depth: "frontmatter", maxSkillBytes },
        opened,
      ),
    );
    const byFolder = new Map(reads.map((read) => [read.folder, read]));
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const path = join(opened.path, entry.name);
      const read = byFolder.get(entry.name);
      if (read) {
        collect(root, read, skills, diagnostics);
      } else if (entry.kind === "symlink") {
        diagnostics.push({
          ...diagnostic(
            path,
            SkillCode.SYMLINK_REFUSED,
            `${JSON.stringify(entry.name)} in root ${root.name} is a symbolic link; links are refused`,
            "put the package folder itself in the root instead of a link to it",
          ),
          root: root.name,
          skill: `${root.name}/${entry.name}`,
        });
      } else if (entry.kind === "file" && entry.name === SKILL_FILE) {
        diagnostics.push({
          ...diagnostic(
            join(opened.path, SKILL_FILE),
            SkillCode.ROOT_INVALID,
            `root ${root.name} holds a SKILL.md itself; a root is a folder of skill folders, so this file is not loaded from this root`,
            "point the root at the folder that contains this package folder",
          ),
          severity: "warning",
          root: root.name,
        });
      }
    }
  } finally {
    await opened.close();
  }
}

function collect(
  root: SkillRoot,
  read: SkillRead,
  skills: SkillSummary[],
  diagnostics: SkillDiagnostic[],
): void {
  if (read.absent) return;
  const skill = `${root.name}/${read.fields?.name ?? read.folder}`;
  for (const d of read.diagnostics) diagnostics.push({ ...d, root: root.name, skill });
  if (read.fields) skills.push(summaryOf(root.name, read, read.fields));
}

function rootProblem(root: SkillRoot, seen: ReadonlySet<string>): SkillDiagnostic | undefined {
  const invalid = (message: string, fix: string): SkillDiagnostic => ({
    ...diagnostic(root.dir, SkillCode.ROOT_INVALID, message, fix),
    root: root.name,
  });
  if (!ROOT_NAME_PATTERN.test(root.name)) {
    return invalid(
      `root name ${JSON.stringify(root.name)} is not valid`,
      "use letters, digits, `.`, `_` and `-` (no `/`), at most 64 characters",
    );
  }
  if (seen.has(root.name))
    return invalid(`root name ${root.name} is configured twice`, "give each root its own name");
  if (!isAbsolute(root.dir))
    return invalid(
      `root ${root.name} is not an absolute directory: ${root.dir}`,
      "resolve the root to an absolute path before discovery",
    );
  return undefined;
}

function rootRefused(root: SkillRoot, refused: string, detail: string): SkillDiagnostic {
  const base = { root: root.name };
  switch (refused) {
    case "missing":
      return {
        ...diagnostic(
          root.dir,
          SkillCode.ROOT_MISSING,
          `root ${root.name} does not exist: ${root.dir}`,
          "create the folder or fix the root's binding",
        ),
        ...base,
      };
    case "symlink":
      return {
        ...diagnostic(
          root.dir,
          SkillCode.SYMLINK_REFUSED,
          `root ${root.name} is a symbolic link; links are refused`,
          "point the root at the real folder",
        ),
        ...base,
      };
    case "not-directory":
      return {
        ...diagnostic(
          root.dir,
          SkillCode.ROOT_INVALID,
          `root ${root.name} is not a directory: ${root.dir}`,
          "point the root at a folder of skill folders",
        ),
        ...base,
      };
    default:
      return {
        ...diagnostic(
          root.dir,
          SkillCode.READ_FAILED,
          `root ${root.name} could not be read: ${detail}`,
          "check the folder's permissions",
        ),
        ...base,
      };
  }
}

/** A bare name found in several roots resolves to the first root's skill; the others are told so. */
function shadowWarnings(skills: readonly SkillSummary[]): SkillDiagnostic[] {
  const first = new Map<string, SkillSummary>();
  const out: SkillDiagnostic[] = [];
  for (const skill of skills) {
    const winner = first.get(skill.name);
    if (!winner) {
      first.set(skill.name, skill);
      continue;
    }
    out.push({
      severity: "warning",
      code: SkillCode.NAME_SHADOWED,
      path: skill.file,
      root: skill.root,
      skill: skill.id,
      message: `the bare name ${skill.name} resolves to ${winner.id} (root ${winner.root} comes first); this skill is reachable only as ${skill.id}`,
      fix: `refer to it as ${skill.id}, or rename one of the two`,
    });
  }
  return out;
}
