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
import { DEFAULT_SKILL_OVERSIZE, type SkillOversize, truncationMarker } from "./oversize.js";
import {
  childPath,
  type FsRefusal,
  isRefusal,
  type OpenDirectory,
  type OpenFile,
  openDirectory,
  openRegularFile,
  readPrefix,
} from "./safe-fs.js";
import type { SkillDiagnostic } from "./types.js";
import { completeUtf8Prefix, firstInvalidUtf8, lineOfOffset } from "./utf8.js";
import { type SkillFields, validateFrontmatter } from "./validate.js";

/** How much of SKILL.md to read: discovery reads the frontmatter only, activation and check all of it. */
export type ReadDepth = "frontmatter" | "full";

export interface ReadOptions {
  readonly depth: ReadDepth;
  /** `max_skill_bytes`: a warning at depth `frontmatter`, the bound of what is read at `full`. */
  readonly maxSkillBytes: number;
  /** At depth `full`, what a SKILL.md over `maxSkillBytes` gets (default refuse). */
  readonly oversize?: SkillOversize;
}

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
  /** Set when the body was cut at `maxSkillBytes` (oversize `truncate`). */
  readonly truncated?: { readonly keptBytes: number; readonly totalBytes: number };
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Discovery reads the frontmatter in chunks this big and stops at the first that holds its
 * closing line, so it reads the frontmatter plus less than this, never an oversized body.
 */
const HEAD_CHUNK_BYTES = 4 * 1024;

/**
 * Reads one package folder without following a link at the folder or at SKILL.md. `parent`,
 * when given, is the open root the folder is opened through.
 */
export async function readSkillPackage(
  dirPath: string,
  folder: string,
  options: ReadOptions,
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
    return await readSkillFile({ ...base, dir: dir.path, file: join(dir.path, SKILL_FILE) }, dir, options);
  } finally {
    await dir.close();
  }
}

type PackageBase = { dir: string; file: string; folder: string; absent: boolean };

async function readSkillFile(
  base: PackageBase,
  dir: OpenDirectory,
  options: ReadOptions,
): Promise<SkillRead> {
  const opened = await openRegularFile(childPath(dir, SKILL_FILE));
  if (isRefusal(opened)) {
    if (opened.refused === "missing") return { ...base, absent: true, diagnostics: [] };
    return { ...base, diagnostics: [fileProblem(base.file, opened)] };
  }
  try {
    return options.depth === "frontmatter"
      ? await readHead(base, opened, options.maxSkillBytes)
      : await readFull(base, opened, options);
  } finally {
    await opened.handle.close();
  }
}

/**
 * Discovery's read: the frontmatter and nothing after it. A file over `max_skill_bytes` is
 * still listed, with a warning, because nothing past the frontmatter is read here.
 */
async function readHead(base: PackageBase, opened: OpenFile, maxSkillBytes: number): Promise<SkillRead> {
  const { file } = base;
  const size = opened.size;
  const { bytes, more } = await readPrefix(opened, MAX_FRONTMATTER_BYTES, {
    chunkBytes: HEAD_CHUNK_BYTES,
    until: (sofar) => headDecided(withoutBom(sofar).toString("utf8")),
  });
  const oversize = size > maxSkillBytes ? [listedTooLarge(file, size, maxSkillBytes)] : [];
  const decoded = decodeHead(withoutBom(bytes), more, file);
  if ("diagnostic" in decoded) return { ...base, size, diagnostics: [...oversize, decoded.diagnostic] };
  const parsed = parseFrontmatter(decoded.text);
  if (!parsed.ok) return { ...base, size, diagnostics: [...oversize, located(file, parsed)] };
  const { diagnostics, fields } = validated(file, base.folder, parsed);
  return {
    ...base,
    diagnostics: [...oversize, ...diagnostics],
    ...(fields ? { fields } : {}),
    size,
    frontmatterHash: sha256(parsed.matter),
  };
}

/**
 * Activation's and check's read: all of SKILL.md, never more than `maxSkillBytes` in memory. An
 * oversized file is refused, or with oversize `truncate` cut at the bound with a marker line.
 */
async function readFull(base: PackageBase, opened: OpenFile, options: ReadOptions): Promise<SkillRead> {
  const { file } = base;
  const { maxSkillBytes } = options;
  const truncate = (options.oversize ?? DEFAULT_SKILL_OVERSIZE) === "truncate";
  if (opened.size > maxSkillBytes && !truncate)
    return { ...base, size: opened.size, diagnostics: [tooLarge(file, opened.size, maxSkillBytes)] };
  const { bytes, more } = await readPrefix(opened, maxSkillBytes);
  if (more) {
    // The file grew past the bound after it was opened, or is oversized and will be cut.
    const total = Math.max(opened.size, (await opened.handle.stat()).size, maxSkillBytes + 1);
    if (!truncate) return { ...base, size: total, diagnostics: [tooLarge(file, total, maxSkillBytes)] };
    return truncatedRead(base, bytes, total, maxSkillBytes);
  }
  const content = withoutBom(bytes);
  const text = decodeStrict(content);
  if (text === undefined) return { ...base, size: opened.size, diagnostics: [invalidUtf8(file, content)] };
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) return { ...base, size: opened.size, diagnostics: [located(file, parsed)] };
  return {
    ...base,
    ...validated(file, base.folder, parsed),
    size: opened.size,
    frontmatterHash: sha256(parsed.matter),
    body: parsed.body,
    bodyLine: parsed.bodyLine,
    contentHash: sha256(bytes),
  };
}

/** The first `maxSkillBytes` of an oversized SKILL.md, cut on a character boundary, marked as cut. */
function truncatedRead(base: PackageBase, bytes: Buffer, total: number, maxSkillBytes: number): SkillRead {
  const { file } = base;
  const kept = bytes.subarray(0, completeUtf8Prefix(bytes));
  const content = withoutBom(kept);
  const text = decodeStrict(content);
  if (text === undefined) return { ...base, size: total, diagnostics: [invalidUtf8(file, content)] };
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) {
    // A frontmatter that does not close within the bound cannot be cut into a valid skill.
    const diagnostic = isUnclosed(parsed)
      ? tooLarge(
          file,
          total,
          maxSkillBytes,
          "its frontmatter does not close within the limit, so it cannot be truncated",
        )
      : located(file, parsed);
    return { ...base, size: total, diagnostics: [diagnostic] };
  }
  const { diagnostics, fields } = validated(file, base.folder, parsed);
  const marker = truncationMarker(kept.length, total);
  const separator = parsed.body.length === 0 || parsed.body.endsWith("\n") ? "" : "\n";
  return {
    ...base,
    diagnostics: [...diagnostics, truncatedWarning(file, kept.length, total, maxSkillBytes)],
    ...(fields ? { fields } : {}),
    size: total,
    frontmatterHash: sha256(parsed.matter),
    body: `${parsed.body}${separator}${marker}\n`,
    bodyLine: parsed.bodyLine,
    contentHash: sha256(kept),
    truncated: { keptBytes: kept.length, totalBytes: total },
  };
}

/**
 * Whether a prefix of SKILL.md already settles what discovery will find: the closing line has
 * ended, or the frontmatter is refused for something more bytes cannot change.
 */
function headDecided(text: string): boolean {
  if (!text.includes("\n")) return false; // the opening line has not ended yet
  const bounds = frontmatterBounds(text);
  if (bounds.ok) return text.charCodeAt(bounds.end - 1) === 10;
  return !isUnclosed(bounds.problem);
}

/**
 * Decodes strictly as UTF-8 the bytes up to the end of the closing delimiter line: the body is
 * neither decoded nor parsed. `more` says the read stopped before the end of the file.
 */
function decodeHead(
  bytes: Buffer,
  more: boolean,
  file: string,
): { text: string } | { diagnostic: SkillDiagnostic } {
  const loose = bytes.toString("utf8");
  if (more && !headDecided(loose)) {
    return {
      diagnostic: diagnostic(
        file,
        SkillCode.FRONTMATTER_TOO_LARGE,
        `the frontmatter does not close within the first ${MAX_FRONTMATTER_BYTES} bytes`,
        "keep the frontmatter to the specification's short fields and close it with a `---` line",
      ),
    };
  }
  const bounds = frontmatterBounds(loose);
  if (!bounds.ok) return { diagnostic: located(file, bounds.problem) };
  const head = loose.slice(0, bounds.end);
  const headBytes = bytes.subarray(0, Buffer.byteLength(head));
  const text = decodeStrict(headBytes);
  return text === head ? { text } : { diagnostic: invalidUtf8(file, headBytes) };
}

function withoutBom(bytes: Buffer): Buffer {
  return bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes;
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

/** `bytes` are the file's bytes after any BOM. */
function invalidUtf8(file: string, bytes: Uint8Array): SkillDiagnostic {
  const offset = firstInvalidUtf8(bytes) ?? 0;
  return {
    ...diagnostic(
      file,
      SkillCode.INVALID_UTF8,
      `SKILL.md is not valid UTF-8: byte ${offset} (after any BOM) does not start a valid sequence`,
      "save the file as UTF-8",
    ),
    line: lineOfOffset(bytes, offset),
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

function tooLarge(file: string, size: number, limit: number, why?: string): SkillDiagnostic {
  return diagnostic(
    file,
    SkillCode.SKILL_TOO_LARGE,
    `SKILL.md is ${size > limit + 1 ? `${size} bytes` : "over the limit"}; the limit (max_skill_bytes) is ${limit} bytes${why ? `, and ${why}` : ""}`,
    "keep SKILL.md short and move reference material into files beside it (references/), which are read on demand",
  );
}

/** Discovery's form of SKILL_TOO_LARGE: the skill is listed; what activation does is the deployment's. */
function listedTooLarge(file: string, size: number, limit: number): SkillDiagnostic {
  return {
    ...diagnostic(
      file,
      SkillCode.SKILL_TOO_LARGE,
      `SKILL.md is ${size} bytes, over max_skill_bytes (${limit}); discovery reads only the frontmatter, so this alone does not stop the skill being listed, but activation refuses it, or cuts it at ${limit} bytes where the deployment sets oversize = "truncate"`,
      "keep SKILL.md short and move reference material into files beside it (references/), which are read on demand",
    ),
    severity: "warning",
  };
}

function truncatedWarning(file: string, kept: number, total: number, limit: number): SkillDiagnostic {
  return {
    ...diagnostic(
      file,
      SkillCode.SKILL_TRUNCATED,
      `SKILL.md is ${total} bytes, over max_skill_bytes (${limit}): only its first ${kept} bytes were activated, ending with the line ${JSON.stringify(truncationMarker(kept, total))}`,
      "keep SKILL.md under max_skill_bytes by moving reference material into files beside it (references/), or raise max_skill_bytes",
    ),
    severity: "warning",
  };
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
