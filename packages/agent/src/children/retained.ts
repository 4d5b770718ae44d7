import {
  ErrorCode,
  fail,
  type JsonObject,
  ok,
  stateKey,
  type ToolContext,
  type ToolResult,
} from "@pablo/kernel";

/**
 * Promotes one retained result by its ID, once: `undefined` when the source holds no such ID
 * (unknown, or already promoted). Contract: never throws, never returns content that was not
 * retained by a call of the same session.
 */
export type RetainedPromoter = (id: string) => JsonObject | undefined;

/** The handoff IDs a source owns: one lower-case letter other than `c` (children), then digits. */
export const RETAINED_ID_PATTERN = /^[a-bd-z][0-9]{1,6}$/;

const SOURCES = stateKey<Map<string, RetainedPromoter>>("agent.retained-sources");

/**
 * Lets a tool keep a result outside model history (a remote A2A task's one artifact) and have
 * `child_handoff` promote it, exactly as a child's result is: the tool registers, for the calling
 * session, the promoter of the IDs that start with `prefix` (`r` for remote artifacts), and
 * returns only a receipt. Registering the same prefix again replaces the promoter.
 */
export function registerHandoffSource(
  ctx: Pick<ToolContext, "state">,
  prefix: string,
  promote: RetainedPromoter,
): void {
  if (!/^[a-bd-z]$/.test(prefix)) throw new Error(`handoff prefix ${prefix} must be one letter other than c`);
  ctx.state(SOURCES, () => new Map()).set(prefix, promote);
}

/** `child_handoff` for an ID no child owns: the registered source's promotion, or NOT_FOUND. */
export function promoteRetained(ctx: Pick<ToolContext, "state">, id: string): ToolResult {
  const promote = ctx.state(SOURCES, () => new Map()).get(id.charAt(0));
  const promoted = promote?.(id);
  if (!promoted)
    return fail(
      ErrorCode.NOT_FOUND,
      `nothing retained as ${id} in this session, or it was already handed off`,
    );
  return ok(promoted);
}
