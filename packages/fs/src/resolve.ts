import { ErrorCode, fail, type ToolFailure } from "@pablo/kernel";
import { joinLinkTarget, startsWith, under } from "./paths.js";
import { type EntryInfo, errorCode } from "./port/types.js";
import { displayPath, type Located, outsidePath, type RootSet, type RootState } from "./roots.js";

/**
 * What the caller needs at the end of the path. `probe` opens nothing at the leaf and stops at the
 * first missing component: it computes the canonical path a call will touch, for `accesses()`.
 */
export type Want = "file" | "directory" | "file-or-directory" | "writable" | "probe";

export type Leaf =
  | { readonly type: "absent" }
  | { readonly type: "file"; readonly handle: number; readonly info: EntryInfo }
  | { readonly type: "directory"; readonly handle: number }
  | { readonly type: "unopened"; readonly info: EntryInfo };

export interface Resolution {
  readonly root: RootState;
  /** Canonical components below the root, after following any permitted links. */
  readonly components: readonly string[];
  readonly canonical: string;
  /** The directory holding the leaf (for the root itself: the root). */
  readonly parent: number;
  /** The leaf's name in `parent`; undefined when the path is the root itself. */
  readonly name: string | undefined;
  readonly leaf: Leaf;
  /** Closes every descriptor this resolution opened; callers never close its handles themselves. */
  release(): Promise<void>;
  /** Removes, deepest first, the parent directories this resolution created (if still empty). Call before release. */
  removeCreated(): Promise<void>;
}

export interface ResolveOptions {
  readonly symlinks: "refuse" | "follow-inside";
  /** Create missing parent directories (fs.write). */
  readonly createParents?: boolean;
}

const MAX_LINK_HOPS = 40;

/**
 * Resolves a located path one component at a time: `lstat` the component relative to the open
 * parent, refuse or follow a link, open a directory with `O_NOFOLLOW | O_DIRECTORY`, open a file
 * with `O_NOFOLLOW | O_NONBLOCK` and check it with `fstat`. Every open is relative to a descriptor
 * that was itself opened this way from a root descriptor, so what is checked is what is used: a
 * directory swapped for a link between two steps makes the open fail instead of escaping.
 */
export async function resolve(
  roots: RootSet,
  located: Located,
  want: Want,
  options: ResolveOptions,
): Promise<Resolution | ToolFailure> {
  const walker = new Walker(roots, located, options);
  try {
    const outcome = await walker.run(want);
    if ("ok" in outcome) {
      await walker.removeCreated();
      await walker.release();
    }
    return outcome;
  } catch (error) {
    await walker.removeCreated();
    await walker.release();
    return portFailure(error, walker.shown());
  }
}

/** Maps a port error to the result a model can act on. */
export function portFailure(error: unknown, path: string): ToolFailure {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "ENOENT":
      return fail(ErrorCode.NOT_FOUND, `${path} does not exist`, { path });
    case "ELOOP":
      return fail(ErrorCode.SYMLINK_REFUSED, `${path} is or passes through a symbolic link`, { path });
    case "ENOTDIR":
      return fail(ErrorCode.NOT_FOUND, `a component of ${path} is not a directory`, { path });
    case "EISDIR":
      return fail(ErrorCode.INVALID_ARGUMENT, `${path} is a directory`, { path });
    case "ENOTREG":
      return fail(ErrorCode.SPECIAL_FILE, `${path} is not a regular file`, { path });
    case "ENAMETOOLONG":
      return fail(ErrorCode.INVALID_ARGUMENT, `${path} has a name that is too long`, { path });
    case "ESTALE":
      return fail(ErrorCode.TOOL_FAILED, `${path}: a root moved: ${message}`, { path });
    default:
      return fail(ErrorCode.TOOL_FAILED, `${path}: ${message}`, { path, ...(code ? { errno: code } : {}) });
  }
}

class Walker {
  readonly #roots: RootSet;
  readonly #options: ResolveOptions;
  #root: RootState;
  #queue: string[];
  #done: string[] = [];
  /** Descriptors this walk opened and still holds; the root's own descriptor is never closed. */
  #owned: number[] = [];
  #created: { dir: number; name: string }[] = [];
  #current = -1;

  constructor(roots: RootSet, located: Located, options: ResolveOptions) {
    this.#roots = roots;
    this.#options = options;
    this.#root = located.root;
    this.#queue = [...located.components];
  }

  shown(extra: readonly string[] = []): string {
    return displayPath(this.#root, [...this.#done, ...extra]);
  }

  async run(want: Want): Promise<Resolution | ToolFailure> {
    const io = this.#roots.io;
    const opened = await this.#openRoot(want);
    if (opened) return opened;
    let hops = 0;
    while (this.#queue.length > 0) {
      const name = this.#queue.shift() as string;
      const last = this.#queue.length === 0;
      const info = await io.lstat(this.#current, name);
      if (info?.type === "symlink") {
        const refused = await this.#follow(name, ++hops);
        if (refused) return refused;
        // A probe (for `accesses()`) opens nothing outside the roots before approval: the
        // canonical outside path is what gets declared.
        if (want === "probe" && this.#root.kind === "external") {
          return this.#result(undefined, { type: "absent" }, this.#queue.splice(0));
        }
        continue;
      }
      if (last) return this.#leaf(want, name, info);
      if (!info) {
        if (want === "probe") return this.#result(name, { type: "absent" }, this.#queue.splice(0));
        if (!this.#options.createParents) {
          return fail(ErrorCode.NOT_FOUND, `${this.shown([name])} does not exist`, {
            path: this.shown([name]),
          });
        }
        await this.#mkdir(name);
      } else if (info.type !== "directory") {
        return notDirectory(this.shown([name]), info);
      }
      await this.#descend(name);
    }
    return this.#rootLeaf(want);
  }

  async release(): Promise<void> {
    const io = this.#roots.io;
    this.#created = [];
    for (const handle of this.#owned.splice(0).reverse()) await io.close(handle).catch(() => undefined);
  }

  async removeCreated(): Promise<void> {
    const io = this.#roots.io;
    for (const { dir, name } of this.#created.splice(0).reverse()) {
      await io.rmdir(dir, name).catch(() => undefined);
    }
  }

  async #openRoot(want: Want): Promise<ToolFailure | undefined> {
    const create = this.#options.createParents === true && want === "writable";
    try {
      this.#current = await this.#root.open(create);
      return undefined;
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
      return fail(ErrorCode.NOT_FOUND, `${this.#root.canonical} does not exist yet`, {
        path: this.#root.canonical,
      });
    }
  }

  /** Follows a permitted link by restarting from the root its target lies in; refuses otherwise. */
  async #follow(name: string, hops: number): Promise<ToolFailure | undefined> {
    const shown = this.shown([name]);
    if (this.#options.symlinks === "refuse" || this.#root.kind === "external") {
      return fail(ErrorCode.SYMLINK_REFUSED, `${shown} is a symbolic link; links are not followed`, {
        path: shown,
        component: name,
      });
    }
    if (hops > MAX_LINK_HOPS) {
      return fail(ErrorCode.SYMLINK_REFUSED, `${shown}: more than ${MAX_LINK_HOPS} links (a loop?)`, {
        path: shown,
      });
    }
    let target: string;
    try {
      target = await this.#roots.io.readlink(this.#current, name);
    } catch (error) {
      const code = errorCode(error);
      if (code !== "EINVAL" && code !== "ENOENT") throw error;
      // No longer a link (swapped since the lstat): look at the component again.
      this.#queue.unshift(name);
      return undefined;
    }
    const joined = joinLinkTarget([...this.#root.components, ...this.#done], target);
    const inside = joined ? this.#placeInside(joined) : undefined;
    if (inside) return this.#restart(inside.root, [...inside.components, ...this.#queue]);
    if (!joined || this.#roots.outsidePaths === "deny") {
      return fail(ErrorCode.OUTSIDE_WORKSPACE, `${shown} links outside the workspace and scratch roots`, {
        path: shown,
        component: name,
      });
    }
    // Seed 001 4a: a link escape is an outside-path request like the absolute path it names. The
    // target and the rest of the path are canonicalized, declared as `external` by the probe, and
    // walked from `/` with every further link refused.
    const outside = await outsidePath(this.#roots, [...joined, ...this.#queue]);
    if ("ok" in outside) return outside;
    return this.#restart(outside.root, outside.components);
  }

  /** Continues the walk from the top of `root` (a followed link's target). */
  async #restart(root: RootState, components: readonly string[]): Promise<undefined> {
    await this.release();
    this.#root = root;
    this.#done = [];
    this.#queue = [...components];
    this.#current = await this.#root.open(false);
    return undefined;
  }

  #placeInside(components: readonly string[]): { root: RootState; components: string[] } | undefined {
    for (const root of [this.#roots.workspace, this.#roots.scratch]) {
      if (root && startsWith(components, root.components)) {
        return { root, components: components.slice(root.components.length) };
      }
    }
    return undefined;
  }

  async #mkdir(name: string): Promise<void> {
    try {
      await this.#roots.io.mkdir(this.#current, name, 0o777);
      this.#created.push({ dir: this.#current, name });
    } catch (error) {
      // Created meanwhile by someone else: open it like any existing directory.
      if (errorCode(error) !== "EEXIST") throw error;
    }
  }

  async #descend(name: string): Promise<void> {
    const io = this.#roots.io;
    const next = await io.openDir(this.#current, name);
    const keep = this.#created.some((c) => c.dir === this.#current);
    const previous = this.#owned.at(-1);
    if (previous !== undefined && previous === this.#current && !keep) {
      this.#owned.pop();
      await io.close(previous).catch(() => undefined);
    }
    this.#owned.push(next);
    this.#current = next;
    this.#done.push(name);
  }

  /** The path named a root itself (or a link to one): a directory, never a file. */
  #rootLeaf(want: Want): Resolution | ToolFailure {
    if (want === "file" || want === "writable") return isDirectory(this.shown());
    return this.#result(undefined, { type: "directory", handle: this.#current });
  }

  async #leaf(want: Want, name: string, info: EntryInfo | undefined): Promise<Resolution | ToolFailure> {
    const io = this.#roots.io;
    const shown = this.shown([name]);
    if (want === "probe") return this.#result(name, info ? { type: "unopened", info } : { type: "absent" });
    if (!info) {
      if (want === "writable") return this.#result(name, { type: "absent" });
      return fail(ErrorCode.NOT_FOUND, `${shown} does not exist`, { path: shown });
    }
    if (info.type === "directory") {
      if (want === "file" || want === "writable") return isDirectory(shown);
      const handle = await io.openDir(this.#current, name);
      this.#owned.push(handle);
      return this.#result(name, { type: "directory", handle });
    }
    if (info.type !== "file") return notRegular(shown, info);
    if (want === "directory") return isFile(shown);
    const opened = await io.openFile(this.#current, name);
    this.#owned.push(opened.handle);
    return this.#result(name, { type: "file", handle: opened.handle, info: opened.info });
  }

  #result(name: string | undefined, leaf: Leaf, rest: readonly string[] = []): Resolution {
    const components = [...this.#done, ...(name === undefined ? [] : [name]), ...rest];
    return {
      root: this.#root,
      components,
      canonical: under(this.#root.canonical, components),
      parent: this.#current,
      name,
      leaf,
      release: () => this.release(),
      removeCreated: () => this.removeCreated(),
    };
  }
}

function isDirectory(path: string): ToolFailure {
  return fail(
    ErrorCode.INVALID_ARGUMENT,
    `${path} is a directory; use fs.list for its children or fs.glob to find files under it`,
    { path, suggestion: { tool: "fs.glob", args: { path, pattern: "**/*" } } },
  );
}

/** A component with more path after it is not a directory: `README.md/x` never means anything. */
function notDirectory(path: string, info: EntryInfo): ToolFailure {
  if (info.type === "file") return isFile(path);
  return notRegular(path, info);
}

function isFile(path: string): ToolFailure {
  return fail(ErrorCode.INVALID_ARGUMENT, `${path} is a file, not a directory`, {
    path,
    reason: "not-a-directory",
  });
}

function notRegular(path: string, info: EntryInfo): ToolFailure {
  return fail(
    ErrorCode.SPECIAL_FILE,
    `${path} is a ${info.type}; only regular files and directories are used`,
    {
      path,
      type: info.type,
    },
  );
}
