import { ErrorCode, fail, type RootKind, type ToolFailure } from "@pablo/kernel";
import { componentsOf, type ParsedPath, startsWith, under } from "./paths.js";
import type { FsPort } from "./port/types.js";

/** One root a tool path may land in, with its descriptor opened once and kept. */
export interface RootState {
  readonly kind: RootKind;
  /** Canonical absolute path. */
  readonly canonical: string;
  readonly components: readonly string[];
  /** Other absolute spellings accepted for this root (the configured, non-canonical path). */
  readonly aliases: readonly (readonly string[])[];
  /** The root's descriptor; `create` makes a lazily created root (scratch) exist first. */
  open(create: boolean): Promise<number>;
}

/** A path placed in a root: the components below it, not yet opened. */
export interface Located {
  readonly root: RootState;
  readonly components: readonly string[];
}

export interface RootSet {
  readonly io: FsPort;
  readonly workspace: RootState;
  readonly scratch: RootState | undefined;
  readonly external: RootState;
  readonly outsidePaths: "deny" | "permission";
}

/** A root whose descriptor is already open (the workspace, opened at admission). */
export function openedRoot(kind: RootKind, canonical: string, handle: number, alias?: string): RootState {
  return {
    kind,
    canonical,
    components: componentsOf(canonical),
    aliases: alias && alias !== canonical ? [componentsOf(alias)] : [],
    open: async () => handle,
  };
}

/** A root opened on first use, optionally created then (the scratch directory, mode 0700). */
export function lazyRoot(
  io: FsPort,
  kind: RootKind,
  canonical: string,
  alias?: string,
  onOpen?: (handle: number) => void,
): RootState {
  let handle: Promise<number> | undefined;
  const open = async (create: boolean): Promise<number> => {
    if (create) await io.ensureDirectory(canonical, 0o700);
    const opened = await io.openRoot(canonical);
    if (opened.canonical !== canonical) {
      await io.close(opened.handle);
      throw Object.assign(new Error(`${canonical} now resolves to ${opened.canonical}`), { code: "ESTALE" });
    }
    onOpen?.(opened.handle);
    return opened.handle;
  };
  return {
    kind,
    canonical,
    components: componentsOf(canonical),
    aliases: alias && alias !== canonical ? [componentsOf(alias)] : [],
    open: (create) => {
      if (!handle) {
        const attempt = open(create);
        handle = attempt;
        // A failed open (scratch not created yet) is retried next time.
        attempt.catch(() => {
          if (handle === attempt) handle = undefined;
        });
      }
      return handle;
    },
  };
}

/**
 * Places a parsed path in a root. Relative paths resolve against the workspace; one whose `..`
 * climbs above it is joined to the workspace's canonical path and placed like that absolute path
 * (seed 001 4a: a `..` escape is an outside-path request, never implicit access). An absolute
 * path belongs to the workspace or the scratch root when it lies under one of their spellings by
 * whole components (so `/w/proj-evil` is not under `/w/proj`); anything else is an explicit
 * outside path, refused unless the deployment sends it through permission as `external`.
 */
export async function locate(roots: RootSet, path: ParsedPath): Promise<Located | ToolFailure> {
  if (!path.absolute && path.up === 0) return { root: roots.workspace, components: path.components };
  const components = path.absolute
    ? path.components
    : [
        ...roots.workspace.components.slice(0, Math.max(0, roots.workspace.components.length - path.up)),
        ...path.components,
      ];
  const inside = placeInRoots(roots, components);
  if (inside) return inside;
  return outsidePath(roots, components);
}

/** The workspace or scratch root an absolute path lies under by whole components, if any. */
export function placeInRoots(roots: RootSet, components: readonly string[]): Located | undefined {
  for (const root of [roots.workspace, roots.scratch]) {
    if (!root) continue;
    for (const prefix of [root.components, ...root.aliases]) {
      if (startsWith(components, prefix)) return { root, components: components.slice(prefix.length) };
    }
  }
  return undefined;
}

/**
 * An absolute path outside both roots: `OUTSIDE_WORKSPACE` under `outside_paths = "deny"`, else the
 * external root with the path's canonical form. It is approved in that form; at execution it is
 * canonicalized and walked again from `/` with every link refused, so a link planted after
 * approval cannot redirect it.
 */
export async function outsidePath(
  roots: RootSet,
  components: readonly string[],
): Promise<Located | ToolFailure> {
  const absolute = under("/", components);
  if (roots.outsidePaths === "deny") {
    return fail(ErrorCode.OUTSIDE_WORKSPACE, `${absolute} is outside the workspace and scratch roots`, {
      path: absolute,
      workspace: roots.workspace.canonical,
      ...(roots.scratch ? { scratch: roots.scratch.canonical } : {}),
    });
  }
  let canonical: string;
  try {
    canonical = await roots.io.canonicalize(absolute);
  } catch (error) {
    return fail(ErrorCode.NOT_FOUND, `${absolute} cannot be resolved: ${messageOf(error)}`, {
      path: absolute,
    });
  }
  return { root: roots.external, components: componentsOf(canonical) };
}

/** What a tool result shows: workspace paths relative to the workspace, others absolute. */
export function displayPath(root: RootState, components: readonly string[]): string {
  if (root.kind === "workspace") return components.length === 0 ? "." : components.join("/");
  return under(root.canonical, components);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
