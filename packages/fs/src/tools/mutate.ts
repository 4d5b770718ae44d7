import { createHash } from "node:crypto";
import { ErrorCode, fail, ok, type ToolContext, type ToolFailure, type ToolResult } from "@pablo/kernel";
import { type Snapshot, snapshot } from "../content.js";
import { type FsEnv, protectedHit } from "../env.js";
import { install } from "../install.js";
import type { Resolution } from "../resolve.js";
import { describeChange, type ReviewChange } from "../review/review-change.js";
import type { StagedSnapshot } from "../review/review-store.js";
import { Yielder } from "../yielder.js";
import { thrownFailure } from "./common.js";
import { openPath, refuseProtected, shownPath } from "./plan.js";
import { checkPrecondition } from "./precondition.js";
import { rememberRevision } from "./revisions.js";

export interface Mutation {
  readonly path: string;
  readonly operation: "write" | "edit";
  readonly expected: string | null | undefined;
  /** The complete new content from the current one (null: the file does not exist). */
  produce(current: Uint8Array | null, shown: string): Uint8Array | ToolFailure;
}

export interface MutationOutcome {
  readonly result: ToolResult;
  /** The canonical path, once resolved (keys per-path state such as failed-edit counts). */
  readonly canonical: string | undefined;
  /** Set when the failure is one seed 001, 4d counts: a stale revision or a content mismatch. */
  readonly countable: boolean;
}

/**
 * The shared body of fs.write and fs.edit: resolve without following links, refuse protected
 * components, check the revision, prepare the complete new content, capture the previous bytes for
 * review, then install atomically after policy, cancellation and the revision are checked again.
 */
export async function mutate(env: FsEnv, ctx: ToolContext, mutation: Mutation): Promise<MutationOutcome> {
  const want = mutation.operation === "edit" ? "file" : "writable";
  const resolved = await openPath(env, ctx, mutation.path, want, mutation.operation === "write");
  if ("ok" in resolved) return { result: resolved, canonical: undefined, countable: false };
  let committed = false;
  try {
    const outcome = await mutateResolved(env, ctx, mutation, resolved);
    committed = outcome.result.committed === true;
    return outcome;
  } catch (error) {
    return {
      result: thrownFailure(error, shownPath(resolved)),
      canonical: resolved.canonical,
      countable: false,
    };
  } finally {
    if (!committed) await resolved.removeCreated();
    await resolved.release();
  }
}

async function mutateResolved(
  env: FsEnv,
  ctx: ToolContext,
  mutation: Mutation,
  resolved: Resolution,
): Promise<MutationOutcome> {
  const shown = shownPath(resolved);
  const canonical = resolved.canonical;
  const done = (result: ToolResult, countable = false): MutationOutcome => ({ result, canonical, countable });
  const refused = refuseProtected(env, { located: resolved, canonical, components: resolved.components });
  if (refused) return done(refused);
  const grant = protectedHit(env, resolved.root, resolved.components)?.grant;
  const quota = env.options.quotas.file_bytes;
  const yielder = new Yielder(ctx.signal);
  let current: Snapshot | undefined;
  if (resolved.leaf.type === "file") {
    if (quota !== undefined && resolved.leaf.info.size > quota)
      return done(overQuota(shown, resolved.leaf.info.size, quota));
    // Whole bytes are kept only where they are needed: the edit itself, or a workspace review.
    const reviewed = resolved.root.kind === "workspace";
    const keep =
      mutation.operation === "edit" ||
      (reviewed && resolved.leaf.info.size <= env.options.review_snapshot_bytes);
    current = await snapshot(env.io, resolved.leaf.handle, { whole: keep }, yielder);
  }
  const stale = checkPrecondition(
    env,
    ctx,
    { canonical, shown, operation: mutation.operation },
    mutation.expected,
    current?.revision ?? null,
  );
  if (stale) return done(stale, stale.error.code === ErrorCode.REVISION_CONFLICT);
  const content = mutation.produce(current?.bytes ?? null, shown);
  if (!(content instanceof Uint8Array)) return done(content, content.error.code === ErrorCode.TOOL_FAILED);
  if (quota !== undefined && content.length > quota) return done(overQuota(shown, content.length, quota));
  const revision = createHash("sha256").update(content).digest("hex");
  const review = resolved.root.kind === "workspace" ? env.reviews : undefined;
  const staged = review?.stage(current ? current.bytes : null);
  const installed = await install({
    io: env.io,
    dir: resolved.parent,
    name: resolved.name as string,
    content,
    mode: current?.info.mode,
    how: current ? "replace" : "create",
    beforeCommit: () => recheck(env, ctx, resolved, current),
  });
  if (!installed.committed) {
    staged?.discard();
    return done(installed.failure);
  }
  rememberRevision(ctx, canonical, revision);
  const warnings = [...installed.warnings];
  const change =
    resolved.root.kind === "workspace"
      ? record(ctx, mutation, { shown, canonical, revision }, current, content, staged, warnings)
      : null;
  return done(
    ok(
      {
        path: shown,
        root: resolved.root.kind,
        created: current === undefined,
        size: content.length,
        revision,
        review: change,
        ...(warnings.length > 0 ? { warnings } : {}),
      },
      { committed: true, ...(grant ? { auditNotes: { protectedGrant: grant } } : {}) },
    ),
  );
}

/** Right before the rename: authority over the exact path, cancellation, and the revision again. */
async function recheck(
  env: FsEnv,
  ctx: ToolContext,
  resolved: Resolution,
  current: Snapshot | undefined,
): Promise<ToolFailure | undefined> {
  const decision = ctx.authorize([
    { dimension: "fs.write", path: resolved.canonical, root: resolved.root.kind },
  ]);
  if (decision.verdict === "deny") {
    return fail(ErrorCode.TOOL_DENIED, `denied by ${decision.layer}/${decision.rule}: ${decision.reason}`, {
      layer: decision.layer,
      rule: decision.rule,
    });
  }
  if (ctx.signal.aborted)
    return fail(ErrorCode.TOOL_CANCELLED, "the call was cancelled before the change was installed");
  const name = resolved.name as string;
  const shown = shownPath(resolved);
  if (!current) {
    const appeared = await env.io.lstat(resolved.parent, name);
    return appeared
      ? fail(ErrorCode.REVISION_CONFLICT, `${shown} was created by someone else meanwhile`, {
          path: shown,
          reason: "exists",
        })
      : undefined;
  }
  const reopened = await env.io.openFile(resolved.parent, name);
  try {
    const now = await snapshot(env.io, reopened.handle, {}, new Yielder(ctx.signal));
    if (now.revision === current.revision) return undefined;
    return fail(ErrorCode.REVISION_CONFLICT, `${shown} changed while the new content was prepared`, {
      path: shown,
      current_revision: now.revision,
      reason: "stale",
    });
  } finally {
    await env.io.close(reopened.handle).catch(() => undefined);
  }
}

function record(
  ctx: ToolContext,
  mutation: Mutation,
  target: { shown: string; canonical: string; revision: string },
  current: Snapshot | undefined,
  content: Uint8Array,
  staged: StagedSnapshot | undefined,
  warnings: string[],
): ReviewChange {
  const reversible = staged?.captured === true;
  const change = describeChange({
    snapshotId: staged?.snapshotId ?? "",
    messageId: ctx.callId,
    path: target.shown,
    operation: mutation.operation,
    before: current ? current.bytes : null,
    after: content,
    reversible,
  });
  if (!staged) return change;
  try {
    staged.commit({
      change,
      target: target.canonical,
      beforeRevision: current?.revision ?? null,
      afterRevision: target.revision,
      mode: current?.info.mode ?? null,
    });
  } catch (error) {
    warnings.push(
      `the review snapshot could not be saved: ${error instanceof Error ? error.message : String(error)}`,
    );
    return { ...change, reversible: false };
  }
  return change;
}

function overQuota(shown: string, size: number, quota: number): ToolFailure {
  return fail(
    ErrorCode.LIMIT_EXCEEDED,
    `${shown} would have ${size} bytes, over the ${quota}-byte file quota`,
    {
      path: shown,
      size,
      quota: "file_bytes",
      limit: quota,
    },
  );
}
