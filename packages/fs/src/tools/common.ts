import { ErrorCode, fail, type ToolFailure } from "@pablo/kernel";
import Type from "typebox";
import { ChangedWhileReading } from "../content.js";
import type { FsEnv } from "../env.js";
import { MAX_PATH_BYTES } from "../paths.js";
import { portFailure } from "../resolve.js";
import { Cancelled } from "../yielder.js";

/** The path argument every fs tool takes. */
export function PathArg(what: string, defaultText?: string) {
  return Type.String({
    minLength: 1,
    maxLength: MAX_PATH_BYTES,
    description:
      `${what}: relative to the workspace, or absolute inside the workspace or the session scratch directory` +
      `${defaultText ? ` (default ${defaultText})` : ""}. ".." is applied to the text first (dir/../a.txt is a.txt); ` +
      "a path that ends up outside the workspace and the scratch directory is an explicit outside-path request, " +
      "which the deployment may refuse.",
  });
}

/**
 * The sentence fs.read, fs.write and fs.edit add to their descriptions when the session has a
 * scratch root (seed 001 4b: the model addresses scratch by absolute path, so it must be told it).
 */
export function scratchSentence(env: FsEnv, mutation: boolean): string {
  const scratch = env.roots.scratch;
  if (!scratch) return "";
  const free = mutation ? "; changes there need no approval and leave no review record" : "";
  return (
    ` The session scratch directory is ${scratch.canonical}: address it by that absolute path ` +
    `(relative paths always resolve against the workspace)${free}.`
  );
}

/** Turns what a tool body threw into the result a model can act on. */
export function thrownFailure(error: unknown, path: string): ToolFailure {
  if (error instanceof Cancelled) return fail(ErrorCode.TOOL_CANCELLED, "the call was cancelled");
  if (error instanceof ChangedWhileReading) {
    return fail(ErrorCode.TOOL_FAILED, `${path}: ${error.message}`, { path });
  }
  return portFailure(error, path);
}
