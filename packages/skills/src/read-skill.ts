import { createHash } from "node:crypto";
import { join } from "node:path";
import { SkillCode } from "./codes.js";
import {
  type FrontmatterProblem,
  frontmatterBounds,
  type ParsedFrontmatter,
  parseFrontmatter,
} from "./frontmatter.js";
import { MAX_FRONTMATTER_BYTES, SKILL_FILE } from "./limits.js";
import {
  childPath,
  type FsRefusal,
  isRefusal,
  type OpenDirectory,
  openDirectory,
  openRegularFile,
  readPrefix,
} from "./safe-fs.js";
import type { SkillDiagnostic } from "./types.js";
import { firstInvalidUtf8, lineOfOffset } from "./utf8.js";
import { type SkillFields, validateFrontmatter } from "./validate.js";

/** How much of SKILL.md to read: discovery reads the frontmatter only, activation and check all of it. */
export type ReadDepth = "frontmatter" | "full";

/** What reading one package found. `fields` is set only when the skill loads. */
export interface SkillRead {
  readonly dir: string;
  readonly file: string;
  readonly folder: string;
  /** The folder has no SKILL.md: it is not a skill package. */
  readonly absent: boolean;
  readonly diagnostics: SkillDiagnostic[];
  readonly fields?: SkillFields;
  readonly size?: number;
  readonly frontmatterHash?: string;
  /** Set at depth `full`. */
  readonly body?: string;
  readonly bodyLine?: number;
  readonly contentHash?: string;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Reads one package folder without following a link at the folder or at SKILL.md. `parent`,
 * when given, is the open root the folder is opened through.
 */
export async function readSkillPackage(
  dirPath: string,
  folder: string,
  depth: ReadDepth,
  maxSkillBytes: number,
  parent?: OpenDirectory,
): Promise<SkillRead> {
  const file = join(dirPath, SKILL_FILE);
  const base = { dir: dirPath, file, folder, absent: false };
  const dir = await openDirectory(dirPath, parent ? childPath(parent, folder) : undefined);
  if (isRefusal(dir)) {
    if (dir.refused === "not-directory" || dir.refused === "missing")
      return { ...base, absent: true, diagnostics: [] };
    return { ...base, diagnostics: [folderProblem(dirPath, folder, dir)] };
  }
  try {
    return await readSkillFile(
      { ...base, dir: dir.path, file: join(dir.path, SKILL_FILE) },
      dir,
      depth,
      maxSkillBytes,
    );
  } finally {
    await dir.close();
  }
}

async function readSkillFile(
  base: { dir: string; file: string; folder: string; absent: boolean },
  dir: OpenDirectory,
  depth: ReadDepth,
  maxSkillBytes: number,
): Promise<SkillRead> {
  const { file } = base;
  const opened = await openRegularFile(childPath(dir, SKILL_FILE));
  if (isRefusal(opened)) {
    if (opened.refused === "missing") return { ...base, absent: true, diagnostics: [] };
    return { ...base, diagnostics: [fileProblem(file, opened)] };
  }
  try {
    if (opened.size > maxSkillBytes)
      return { ...base, diagnostics: [tooLarge(file, opened.size, maxSkillBytes)] };
    const limit = depth === "full" ? maxSkillBytes : Math.min(maxSkillBytes, MAX_FRONTMATTER_BYTES);
    const { bytes, more } = await readPrefix(opened, limit);
    if (depth === "full" && more)
      return { ...base, diagnostics: [tooLarge(file, maxSkillBytes + 1, maxSkillBytes)] };
    const decoded = decodeSkill(bytes, depth, more, file);
    if ("diagnostic" in decoded) return { ...base, size: opened.size, diagnostics: [decoded.diagnostic] };
    const parsed = parseFrontmatter(decoded.text);
    if (!parsed.ok) return { ...base, size: opened.size, diagnostics: [located(file, parsed)] };
    return {
      ...base,
      ...validated(file, base.folder, parsed),
      size: opened.size,
      frontmatterHash: sha256(parsed.matter),
      ...(depth === "full"
        ? { body: parsed.body, bodyLine: parsed.bodyLine, contentHash: sha256(bytes) }
        : {}),
    };
  } finally {
    await opened.handle.close();
  }
}

/**
 * Decodes strictly as UTF-8. At depth `frontmatter` only the bytes up to the end of the closing
 * delimiter line are decoded and parsed: the body is neither decoded nor parsed.
 */
function decodeSkill(
  raw: Buffer,
  depth: ReadDepth,
  more: boolean,
  file: string,
): { text: string } | { diagnostic: SkillDiagnostic } {
  const bytes = raw.subarray(0, 3).equals(BOM) ? raw.subarray(3) : raw;
  if (depth === "full") {
    const text = decodeStrict(bytes);
    return text === undefined ? invalidUtf8(file, bytes) : { text };
  }
  const loose = bytes.toString("utf8");
  const bounds = frontmatterBounds(loose);
  // The prefix ended before a closing line was seen, or right at one that may continue.
  const cutShort = more && (bounds.ok ? bounds.end === loose.length : isUnclosed(bounds.problem));
  if (cutShort) {
    return {
      diagnostic: diagnostic(
        file,
        SkillCode.FRONTMATTER_TOO_LARGE,
        `the frontmatter does not close within the first ${MAX_FRONTMATTER_BYTES} bytes`,
        "keep the frontmatter to the specification's short fields and close it with a `---` line",
      ),
    };
  }
  if (!bounds.ok) return { diagnostic: located(file, bounds.problem) };
  const head = loose.slice(0, bounds.end);
  const headBytes = bytes.subarray(0, Buffer.byteLength(head));
  const text = decodeStrict(headBytes);
  return text === head ? { text } : invalidUtf8(file, headBytes);
}

function validated(
  file: string,
  folder: string,
  parsed: ParsedFrontmatter,
): { diagnostics: SkillDiagnostic[]; fields?: SkillFields } {
  const { fields, problems } = validateFrontmatter(
    parsed.data,
    folder,
    (field) => parsed.fields.get(field)?.source,
  );
  const diagnostics = problems.map((p): SkillDiagnostic => {
    const at =
      p.field === undefined
        ? undefined
        : (parsed.fields.get(p.field) ?? parsed.fields.get(p.field.split(".")[0] ?? ""));
    const line = at?.line;
    return {
      severity: p.severity,
      code: p.code,
      path: file,
      ...(p.field === undefined ? {} : { field: p.field }),
      ...(line === undefined ? {} : { line }),
      message: p.message,
      fix: p.fix,
    };
  });
  return fields ? { diagnostics, fields } : { diagnostics };
}

function invalidUtf8(file: string, bytes: Uint8Array): { diagnostic: SkillDiagnostic } {
  const offset = firstInvalidUtf8(bytes) ?? 0;
  return {
    diagnostic: {
      ...diagnostic(
        file,
        SkillCode.INVALID_UTF8,
        `SKILL.md is not valid UTF-8: byte ${offset} (after any BOM) does not start a valid sequence`,
        "save the file as UTF-8",
      ),
      line: lineOfOffset(bytes, offset),
    },
  };
}

function isUnclosed(problem: FrontmatterProblem): boolean {
  return problem.code === SkillCode.FRONTMATTER_NOT_CLOSED && problem.line === undefined;
}

function decodeStrict(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function located(file: string, problem: FrontmatterProblem): SkillDiagnostic {
  return {
    ...diagnostic(file, problem.code, problem.message, problem.fix),
    ...(problem.line ? { line: problem.line } : {}),
  };
}

function tooLarge(file: string, size: number, limit: number): SkillDiagnostic {
  return diagnostic(
    file,
    SkillCode.SKILL_TOO_LARGE,
    `SKILL.md is ${size > limit + 1 ? `${size} bytes` : "over the limit"}; the limit (max_skill_bytes) is ${limit} bytes`,
    "keep SKILL.md short and move reference material into files beside it (references/), which are read on demand",
  );
}

function folderProblem(dir: string, folder: string, refusal: FsRefusal): SkillDiagnostic {
  if (refusal.refused === "symlink") {
    return {
      ...diagnostic(
        dir,
        SkillCode.SYMLINK_REFUSED,
        `the package folder ${JSON.stringify(folder)} is a symbolic link; links are refused`,
        "put the package folder itself in the root instead of a link to it",
      ),
      skill: folder,
    };
  }
  return {
    ...diagnostic(
      dir,
      SkillCode.READ_FAILED,
      `the package folder could not be opened: ${refusal.detail}`,
      "check the folder's permissions",
    ),
    skill: folder,
  };
}

function fileProblem(file: string, refusal: FsRefusal): SkillDiagnostic {
  switch (refusal.refused) {
    case "symlink":
      return diagnostic(
        file,
        SkillCode.SYMLINK_REFUSED,
        "SKILL.md is a symbolic link; links are refused",
        "replace the link with the file itself",
      );
    case "special":
      return diagnostic(
        file,
        SkillCode.SPECIAL_FILE,
        `SKILL.md is ${refusal.detail}, not a regular file`,
        "make SKILL.md a regular file",
      );
    default:
      return diagnostic(
        file,
        SkillCode.READ_FAILED,
        `SKILL.md could not be read: ${refusal.detail}`,
        "check the file's permissions",
      );
  }
}

export function diagnostic(path: string, code: SkillCode, message: string, fix: string): SkillDiagnostic {
  return { severity: "error", code, path, message, fix };
}
