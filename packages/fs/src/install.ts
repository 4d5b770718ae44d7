import { randomBytes } from "node:crypto";
import { ErrorCode, fail, type ToolFailure } from "@pablo/kernel";
import { errorCode, type FsPort } from "./port/types.js";

export interface InstallRequest {
  readonly io: FsPort;
  /** The directory that holds the target, opened without following links. */
  readonly dir: number;
  readonly name: string;
  readonly content: Uint8Array;
  /** Permission bits to keep (the replaced file's); undefined creates with 0666 minus the umask. */
  readonly mode: number | undefined;
  /** `replace` renames over the target; `create` links, which fails if the target appeared meanwhile. */
  readonly how: "replace" | "create";
  /**
   * Runs after the temporary file is complete and flushed, immediately before the rename: policy,
   * cancellation and the revision are checked here again. A failure result aborts the install.
   */
  readonly beforeCommit: () => Promise<ToolFailure | undefined>;
}

export type InstallOutcome =
  | { readonly committed: true; readonly warnings: readonly string[] }
  | { readonly committed: false; readonly failure: ToolFailure };

/**
 * Installs complete new content atomically: a private temporary file in the target's directory
 * (exclusive create, no link followed, the old mode kept), written, flushed, then renamed over the
 * target, so a reader or a crash sees the old bytes or the new ones, never a mix. Before the
 * rename nothing visible changed and the temporary file is removed on every failure; after it the
 * install is committed whatever happens next (a failed directory flush is only a warning).
 */
export async function install(request: InstallRequest): Promise<InstallOutcome> {
  const { io, dir, name } = request;
  const temporary = `.pablo-${randomBytes(8).toString("hex")}.tmp`;
  let created = false;
  try {
    const handle = await io.createExclusive(dir, temporary, request.mode ?? 0o666);
    created = true;
    try {
      await io.write(handle, request.content);
      // The umask applied at create; the replaced file's exact bits are restored here.
      if (request.mode !== undefined) await io.chmod(handle, request.mode);
      await io.sync(handle);
    } finally {
      await io.close(handle);
    }
    const refused = await request.beforeCommit();
    if (refused) return { committed: false, failure: refused };
    if (request.how === "replace") {
      await io.rename(dir, temporary, name);
      created = false;
    } else {
      try {
        await io.link(dir, temporary, name);
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error;
        return {
          committed: false,
          failure: fail(ErrorCode.REVISION_CONFLICT, `${name} was created by someone else meanwhile`, {
            reason: "exists",
          }),
        };
      }
    }
  } catch (error) {
    return { committed: false, failure: installFailure(error, name) };
  } finally {
    if (created) await io.unlink(dir, temporary).catch(() => undefined);
  }
  const warnings: string[] = [];
  try {
    await io.sync(dir);
  } catch (error) {
    warnings.push(`the directory could not be flushed: ${messageOf(error)}`);
  }
  return { committed: true, warnings };
}

function installFailure(error: unknown, name: string): ToolFailure {
  const code = errorCode(error);
  if (code === "ENOSPC" || code === "EDQUOT") {
    return fail(ErrorCode.TOOL_FAILED, `no space left to write ${name}; the original is unchanged`, {
      errno: code,
    });
  }
  if (code === "EISDIR") return fail(ErrorCode.INVALID_ARGUMENT, `${name} is a directory`);
  return fail(ErrorCode.TOOL_FAILED, `writing ${name} failed before it was installed: ${messageOf(error)}`, {
    ...(code ? { errno: code } : {}),
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
