import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, posix, relative } from "node:path";
import { type AuditNotes, ErrorCode, fail, type ToolContext, type ToolResult } from "@pablo/kernel";
import { defaultResolveCwd } from "./default-resolve-cwd.js";
import { joinRelative, type PatchCommand, patchedNames, strippedName } from "./patch-commands.js";

/** Where a failed patch command ran, for finding the files it was about. */
export interface PatchSite {
  /** Canonical workspace root. */
  readonly workspace: string;
  /** Canonical working directory of the call. */
  readonly cwd: string;
  /** The session's scratch root, where a patch file may live too. */
  readonly scratchDir: string | undefined;
}

/** The key of a patch whose input could not be read or named. */
export const UNNAMED_PATCH = "(unnamed patch input)";

/**
 * Seed 001 §4d for shell patches. A failed run (non-zero exit) of a recognised patch command is
 * attempt 1 for each path it targets in the current user prompt; when any of them already failed
 * once in this prompt, the result terminates the turn. The paths are, in order of preference: the
 * file the command names as its target (`patch file fix.diff`); the files named in the patch's
 * headers, read from the patch file inside the workspace or scratch root or from the line's own
 * here-document; else the patch-file argument; else {@link UNNAMED_PATCH}. All are workspace-
 * relative (absolute outside it), after `-C`/`-d`, `--directory` and `-p` are applied.
 */
export async function countPatchFailure(
  result: ToolResult,
  patch: PatchCommand,
  site: PatchSite,
  ctx: ToolContext,
): Promise<ToolResult> {
  if (result.ok || result.error.code !== ErrorCode.TOOL_FAILED) return result;
  const exitCode = result.error.details?.["exitCode"];
  if (typeof exitCode !== "number" || exitCode === 0) return result;
  const targets = await patchTargets(patch, site);
  const attempt = countFailure(ctx, targets);
  const mutation = { mutationFailureKind: "patch", mutationFailureAttempt: attempt };
  const details = { ...result.error.details, ...mutation, patchTool: patch.tool, patchTargets: targets };
  const notes: AuditNotes = { ...result.auditNotes, ...mutation, terminate: attempt >= 2 };
  if (attempt < 2) return { ...fail(result.error.code, result.error.message, details), auditNotes: notes };
  const message =
    `${result.error.message}. This is the second failed patch of ${targets.join(", ")} in this prompt: ` +
    "stop and report the exact mismatch instead of retrying or editing hunk headers.";
  return { ...fail(result.error.code, message, details, { terminate: true }), auditNotes: notes };
}

const FAILED_PATCHES = "@pablo/shell:failed-patches";

interface FailedPatches {
  promptId: string;
  readonly counts: Map<string, number>;
}

/** Counts one failure for every target and returns the highest attempt among them. */
function countFailure(ctx: ToolContext, targets: readonly string[]): number {
  const state = ctx.state<FailedPatches>(FAILED_PATCHES, () => ({
    promptId: ctx.promptId,
    counts: new Map(),
  }));
  if (state.promptId !== ctx.promptId) {
    state.promptId = ctx.promptId;
    state.counts.clear();
  }
  let attempt = 0;
  for (const target of targets) {
    const count = (state.counts.get(target) ?? 0) + 1;
    state.counts.set(target, count);
    attempt = Math.max(attempt, count);
  }
  return attempt;
}

async function patchTargets(patch: PatchCommand, site: PatchSite): Promise<string[]> {
  const base = joinRelative(relative(site.workspace, site.cwd) || ".", patch.chdir);
  const key = (name: string) => workspaceKey(site.workspace, joinRelative(base, name));
  if (patch.target) return [key(patch.target)];
  let text = patch.inline ?? "";
  for (const file of patch.patchFiles)
    text += `\n${(await readPatchFile(site, joinRelative(base, file))) ?? ""}`;
  const names = patchedNames(text).map((name) => strippedName(name, patch.strip));
  if (names.length > 0)
    return [...new Set(names.map((name) => key(joinRelative(patch.prefix || ".", name))))];
  if (patch.patchFiles.length > 0) return patch.patchFiles.map(key);
  return [UNNAMED_PATCH];
}

/** A workspace-relative lexical path, or the absolute one when it leaves the workspace. */
function workspaceKey(workspace: string, path: string): string {
  const absolute = posix.normalize(path.startsWith("/") ? path : `${workspace}/${path}`);
  const inside = posix.relative(workspace, absolute);
  return inside === "" ? "." : inside.startsWith("../") || inside === ".." ? absolute : inside;
}

const MAX_PATCH_BYTES = 1024 * 1024;

/**
 * The first MiB of a patch file inside the workspace or the scratch root, or undefined. Its
 * directory is contained like a cwd (component by component, links refused) and the file is
 * opened without following a link at the leaf; anything else is not read.
 */
async function readPatchFile(site: PatchSite, path: string): Promise<string | undefined> {
  const absolute = posix.normalize(path.startsWith("/") ? path : `${site.workspace}/${path}`);
  const root = [site.workspace, site.scratchDir].find(
    (r) => r !== undefined && (absolute === r || absolute.startsWith(`${r}/`)),
  );
  if (root === undefined) return undefined;
  const directory = await defaultResolveCwd(root, posix.relative(root, dirname(absolute)) || ".");
  if (!directory.ok) return undefined;
  const leaf = absolute.slice(absolute.lastIndexOf("/") + 1);
  try {
    const handle = await open(
      `${directory.path}/${leaf}`,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      if (!(await handle.stat()).isFile()) return undefined;
      const buffer = Buffer.alloc(MAX_PATCH_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, MAX_PATCH_BYTES, 0);
      return buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}
