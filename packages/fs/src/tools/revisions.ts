import type { ToolContext } from "@pablo/kernel";

const REVISIONS = "@pablo/fs:revisions";
const FAILED_EDITS = "@pablo/fs:failed-edits";

/** Remembers the revision this session last saw of a file (read or written), for `revisions: "tracked"`. */
export function rememberRevision(ctx: ToolContext, canonical: string, revision: string): void {
  ctx.state(REVISIONS, () => new Map<string, string>()).set(canonical, revision);
}

/** The revision this session last saw of a file, if any. */
export function recalledRevision(ctx: ToolContext, canonical: string): string | undefined {
  return ctx.state(REVISIONS, () => new Map<string, string>()).get(canonical);
}

interface FailedEdits {
  promptId: string;
  readonly counts: Map<string, number>;
}

/**
 * Counts a failed fs.edit of a path within the current user prompt (seed 001, 4d) and returns the
 * attempt number: the second failure of the same path terminates the turn.
 */
export function countFailedEdit(ctx: ToolContext, canonical: string): number {
  const state = ctx.state<FailedEdits>(FAILED_EDITS, () => ({ promptId: ctx.promptId, counts: new Map() }));
  if (state.promptId !== ctx.promptId) {
    state.promptId = ctx.promptId;
    state.counts.clear();
  }
  const attempt = (state.counts.get(canonical) ?? 0) + 1;
  state.counts.set(canonical, attempt);
  return attempt;
}
