import { randomBytes } from "node:crypto";
import { closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode, fail, type ToolFailure } from "@pablo/kernel";

export type ArtifactKind = "plan" | "goal";

/** A fresh file name: kind, UTC time to the second, and random hex, e.g. `plan-20250102-030405-a1b2c3.md`. */
export function artifactName(kind: ArtifactKind, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${kind}-${stamp}-${randomBytes(3).toString("hex")}.md`;
}

/** `.pablo/<kind>/<name>`, relative to the workspace. */
export function artifactRelativePath(kind: ArtifactKind, name: string): string {
  return `.pablo/${kind}/${name}`;
}

/**
 * Writes `bytes` to a new file `.pablo/<kind>/<name>` under `workspace`, exactly as given.
 * Creation is exclusive (an existing name fails with ALREADY_EXISTS, never overwrites), and no
 * component may be a symbolic link: on Linux each directory is opened with O_NOFOLLOW and the
 * next component is resolved relative to the open directory (`/proc/self/fd`), so a link swapped
 * in during the write is refused too. Elsewhere the components are checked with lstat first,
 * which leaves a window between check and use.
 */
export function preserveArtifact(
  workspace: string,
  kind: ArtifactKind,
  name: string,
  bytes: Uint8Array,
): ToolFailure | undefined {
  const opened: number[] = [];
  try {
    const viaProc = process.platform === "linux";
    let dir = openSync(workspace, constants.O_RDONLY | constants.O_DIRECTORY);
    opened.push(dir);
    let shown = workspace;
    for (const component of [".pablo", kind]) {
      shown = join(shown, component);
      const path = viaProc ? `/proc/self/fd/${dir}/${component}` : shown;
      try {
        mkdirSync(path, { mode: 0o755 });
      } catch (error) {
        if (codeOf(error) !== "EEXIST") throw error;
      }
      if (!viaProc && lstatSync(path).isSymbolicLink()) return symlinkFailure(shown);
      dir = openDirectory(path, shown);
      opened.push(dir);
    }
    const target = viaProc ? `/proc/self/fd/${dir}/${name}` : join(shown, name);
    const fd = openSync(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
    opened.push(fd);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
    return undefined;
  } catch (error) {
    if (error instanceof ArtifactRefusal) return error.failure;
    if (codeOf(error) === "EEXIST") {
      return fail(
        ErrorCode.ALREADY_EXISTS,
        `${artifactRelativePath(kind, name)} already exists; nothing was overwritten`,
      );
    }
    return fail(
      ErrorCode.TOOL_FAILED,
      `could not preserve the ${kind}: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    for (const fd of opened.reverse()) closeSync(fd);
  }
}

function openDirectory(path: string, shown: string): number {
  try {
    return openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ELOOP" || code === "ENOTDIR") throw new ArtifactRefusal(symlinkFailure(shown));
    throw error;
  }
}

class ArtifactRefusal extends Error {
  readonly failure: ToolFailure;
  constructor(failure: ToolFailure) {
    super(failure.error.message);
    this.failure = failure;
  }
}

function symlinkFailure(shown: string): ToolFailure {
  return fail(
    ErrorCode.SYMLINK_REFUSED,
    `${shown} is a symbolic link or not a directory; the artifact was not written`,
  );
}

function codeOf(error: unknown): string | undefined {
  return error !== null && typeof error === "object" && "code" in error ? String(error.code) : undefined;
}
