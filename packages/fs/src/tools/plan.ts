import { type Access, ErrorCode, fail, type ToolContext, type ToolFailure } from "@pablo/kernel";
import { type FsEnv, protectedHit, rememberDeclared, takeDeclared } from "../env.js";
import { type ParsedPath, parsePath, under } from "../paths.js";
import { type Resolution, resolve, type Want } from "../resolve.js";
import { displayPath, type Located, locate } from "../roots.js";

export interface Planned {
  readonly located: Located;
  /** Canonical absolute path the call will touch. */
  readonly canonical: string;
  /** Components below the root, after links permitted by `follow-inside`. */
  readonly components: readonly string[];
}

/**
 * What `accesses()` declares: lexical checks, the root, and the canonical path. With
 * `symlinks: "refuse"` the canonical path is lexical (any link will be refused at execution);
 * with `follow-inside` the existing part of the path is resolved now, and again at execution.
 */
export async function planPath(env: FsEnv, text: string, want: Want): Promise<Planned | ToolFailure> {
  const parsed = parsePath(text);
  if (!parsed.ok) return parsed.failure;
  const located = await locate(env.roots, parsed.path);
  if ("ok" in located) return located;
  const shape = shapeOf(parsed.path, text, want);
  if (typeof shape !== "string") return shape;
  if (env.options.symlinks === "refuse" || located.root.kind === "external") {
    return {
      located,
      canonical: under(located.root.canonical, located.components),
      components: located.components,
    };
  }
  const probed = await resolve(env.roots, located, "probe", { symlinks: env.options.symlinks });
  if ("ok" in probed) return probed;
  await probed.release();
  return {
    located: { root: probed.root, components: probed.components },
    canonical: probed.canonical,
    components: probed.components,
  };
}

/** The accesses of a planned path, remembered for the comparison at execution. */
export function declare(
  env: FsEnv,
  ctx: ToolContext,
  planned: Planned,
  dimensions: readonly ("fs.read" | "fs.write")[],
): Access[] {
  rememberDeclared(env, ctx.callId, planned.canonical);
  return dimensions.map((dimension) => ({
    dimension,
    path: planned.canonical,
    root: planned.located.root.kind,
  }));
}

/** fs.write and fs.edit refuse protected components unless a grant (by rule ID) covers the path. */
export function refuseProtected(env: FsEnv, planned: Planned): ToolFailure | undefined {
  const hit = protectedHit(env, planned.located.root, planned.components);
  if (!hit || hit.grant) return undefined;
  const shown = displayPath(planned.located.root, planned.components);
  return fail(
    ErrorCode.TOOL_DENIED,
    `${shown} is inside the protected component ${JSON.stringify(hit.component)}; fs.write and fs.edit refuse it unless a rule grants it`,
    { layer: "fs", rule: "fs.protected", component: hit.component, path: shown },
  );
}

/**
 * Resolves a path for execution and checks it is the path `accesses()` declared: a link retargeted
 * after approval must not move the call to a path (or root) nobody approved.
 */
export async function openPath(
  env: FsEnv,
  ctx: ToolContext,
  text: string,
  want: Want,
  createParents = false,
): Promise<Resolution | ToolFailure> {
  const declared = takeDeclared(env, ctx.callId);
  const parsed = parsePath(text);
  if (!parsed.ok) return parsed.failure;
  const located = await locate(env.roots, parsed.path);
  if ("ok" in located) return located;
  const shape = shapeOf(parsed.path, text, want);
  if (typeof shape !== "string") return shape;
  const resolved = await resolve(env.roots, located, shape, {
    symlinks: env.options.symlinks,
    createParents,
  });
  if ("ok" in resolved) return resolved;
  if (declared !== undefined && declared !== resolved.canonical) {
    await resolved.removeCreated();
    await resolved.release();
    return fail(
      ErrorCode.TOOL_DENIED,
      `${text} resolved to ${resolved.canonical} at execution but ${declared} when it was approved`,
      { layer: "fs", rule: "fs.path-changed", declared, resolved: resolved.canonical },
    );
  }
  return resolved;
}

/**
 * What a path that names a directory (`a.txt/`, `README.md/.`, `README.md/x/..`) may be used for:
 * never a file, so `..` normalization cannot turn a path through a file into the file itself.
 */
function shapeOf(path: ParsedPath, text: string, want: Want): Want | ToolFailure {
  if (!path.namesDirectory) return want;
  if (want === "file" || want === "writable") {
    return fail(
      ErrorCode.INVALID_ARGUMENT,
      `${text} ends in "/", "/." or "/..", which names a directory, but a file is needed`,
      { path: text, reason: "names-directory" },
    );
  }
  return want === "file-or-directory" ? "directory" : want;
}

/** The display path of a resolution: relative in the workspace, absolute elsewhere. */
export function shownPath(resolution: Resolution): string {
  return displayPath(resolution.root, resolution.components);
}
