import type { ResolvedFsOptions } from "./options.js";
import { componentsOf, startsWith } from "./paths.js";
import type { FsPort } from "./port/types.js";
import type { ReviewStore } from "./review/review-store.js";
import type { RootSet, RootState } from "./roots.js";

/** What every fs tool of one `createFsTools` call shares. Narrow on purpose: no god object. */
export interface FsEnv {
  readonly io: FsPort;
  readonly options: ResolvedFsOptions;
  readonly roots: RootSet;
  readonly reviews: ReviewStore | undefined;
  /** Lower-cased protected components (`.git`, `.pablo`, configured ones). */
  readonly protectedNames: ReadonlySet<string>;
  /** Grants lifting the protection, as canonical absolute components. */
  readonly grants: readonly { readonly id: string; readonly components: readonly string[] }[];
  /** Canonical paths declared by `accesses()`, by call ID, to compare with what execution resolves. */
  readonly declared: Map<string, string>;
}

const DECLARED_KEPT = 1024;

/** Remembers what a call declared; old entries (calls that were denied and never ran) are dropped. */
export function rememberDeclared(env: FsEnv, callId: string, canonical: string): void {
  env.declared.delete(callId);
  env.declared.set(callId, canonical);
  while (env.declared.size > DECLARED_KEPT) {
    const oldest = env.declared.keys().next().value;
    if (oldest === undefined) break;
    env.declared.delete(oldest);
  }
}

/** The path a call declared before it ran, consumed once; undefined when execute is called directly. */
export function takeDeclared(env: FsEnv, callId: string): string | undefined {
  const declared = env.declared.get(callId);
  env.declared.delete(callId);
  return declared;
}

/**
 * The protected component a write would touch, unless a grant covers the path. Compared
 * case-insensitively and ignoring trailing dots and spaces, which case-insensitive and Windows
 * filesystems also ignore: `.GIT` and `.git.` name the same directory there.
 */
export function protectedHit(
  env: FsEnv,
  root: RootState,
  components: readonly string[],
): { component: string; grant: string | undefined } | undefined {
  const hit = components.find((c) => env.protectedNames.has(foldName(c)));
  if (hit === undefined) return undefined;
  const absolute = [...(root.kind === "external" ? [] : root.components), ...components];
  const grant = env.grants.find((g) => startsWith(absolute, g.components));
  return { component: hit, grant: grant?.id };
}

export function foldName(name: string): string {
  return name.toLowerCase().replace(/[. ]+$/, "");
}

/** Resolves configured grant paths (relative ones against the workspace) to components. */
export function grantComponents(workspace: string, path: string): string[] {
  return path.startsWith("/") ? componentsOf(path) : [...componentsOf(workspace), ...componentsOf(path)];
}
