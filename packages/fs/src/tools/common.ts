import { ErrorCode, fail, type ToolFailure } from "@pablo/kernel";
import Type from "typebox";
import { ChangedWhileReading } from "../content.js";
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
      `${defaultText ? ` (default ${defaultText})` : ""}. ".." components are refused, never normalized.`,
  });
}

/** Turns what a tool body threw into the result a model can act on. */
export function thrownFailure(error: unknown, path: string): ToolFailure {
  if (error instanceof Cancelled) return fail(ErrorCode.TOOL_CANCELLED, "the call was cancelled");
  if (error instanceof ChangedWhileReading) {
    return fail(ErrorCode.TOOL_FAILED, `${path}: ${error.message}`, { path });
  }
  return portFailure(error, path);
}
