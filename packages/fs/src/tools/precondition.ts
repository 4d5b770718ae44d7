import { ErrorCode, fail, type ToolContext, type ToolFailure } from "@pablo/kernel";
import type { FsEnv } from "../env.js";
import { recalledRevision } from "./revisions.js";

/**
 * The revision precondition of a mutation. `null` creates only if absent; a revision replaces only
 * that exact content; an omitted revision is an error unless the deployment tracks revisions, and
 * then it stands for the revision this session last saw (an un-read or changed file is refused).
 */
export function checkPrecondition(
  env: FsEnv,
  ctx: ToolContext,
  target: { readonly canonical: string; readonly shown: string; readonly operation: "write" | "edit" },
  expected: string | null | undefined,
  current: string | null,
): ToolFailure | undefined {
  const { canonical, shown, operation } = target;
  const conflict = (message: string, reason: string) =>
    fail(ErrorCode.REVISION_CONFLICT, message, { path: shown, current_revision: current, reason });
  if (expected === null) {
    return current === null
      ? undefined
      : conflict(`${shown} already exists; pass its current revision to replace it`, "exists");
  }
  if (typeof expected === "string") {
    if (current === null) {
      // fs.edit has no `null` revision: it only changes an existing file.
      const create =
        operation === "edit" ? "create it with fs.write" : "pass expected_revision: null to create it";
      return conflict(`${shown} does not exist; ${create}`, "absent");
    }
    return expected === current
      ? undefined
      : conflict(
          `${shown} changed: its revision is not ${expected}; read it again before changing it`,
          "stale",
        );
  }
  if (env.options.revisions === "explicit") {
    const allowed =
      operation === "edit"
        ? "pass the revision fs.read returned for this file"
        : "null to create a new file, or the revision fs.read returned to replace one";
    return fail(ErrorCode.INVALID_ARGUMENT, `expected_revision is required: ${allowed}`, { path: shown });
  }
  if (current === null) return undefined;
  const seen = recalledRevision(ctx, canonical);
  if (seen === undefined) return conflict(`read ${shown} with fs.read before overwriting it`, "not-read");
  return seen === current
    ? undefined
    : conflict(`stale: ${shown} changed since this session read it; read it again`, "changed");
}
