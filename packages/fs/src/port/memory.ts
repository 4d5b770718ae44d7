import { type DirEntry, type EntryInfo, type EntryType, type FsPort, PortError } from "./types.js";

type Node = DirNode | FileNode | LinkNode | SpecialNode;
interface Base {
  readonly ino: number;
  mode: number;
  mtimeMs: number;
  ctimeMs: number;
}
interface DirNode extends Base {
  readonly type: "directory";
  readonly entries: Map<string, Node>;
  parent: DirNode | undefined;
}
interface FileNode extends Base {
  readonly type: "file";
  data: Uint8Array;
  links: number;
}
interface LinkNode extends Base {
  readonly type: "symlink";
  readonly target: string;
}
interface SpecialNode extends Base {
  readonly type: "fifo" | "socket" | "char-device" | "block-device";
}

/**
 * Seed 003's virtual sandbox: an in-memory filesystem with the same no-follow, one-component
 * semantics as the local port, including links and special files for tests. It has no processes,
 * so nothing but the fs tools can see it.
 */
export interface MemoryFs extends FsPort {
  /** Writes a file at an absolute path, creating parent directories. */
  writeFile(path: string, content: string | Uint8Array, mode?: number): void;
  /** The bytes at an absolute path (following no links), or undefined. */
  readFile(path: string): Uint8Array | undefined;
  mkdirp(path: string): void;
  symlink(target: string, path: string): void;
  mkfifo(path: string): void;
  /** Names of an absolute directory, sorted. */
  names(path: string): string[];
}

const DEFAULT_DIR_MODE = 0o755;
const DEFAULT_FILE_MODE = 0o644;
const MAX_HOPS = 40;

export function createMemoryFs(): MemoryFs {
  let inodes = 1;
  let handles = 3;
  const now = () => Date.now();
  const make = <T extends Node>(node: Omit<T, "ino" | "mtimeMs" | "ctimeMs">): T =>
    ({ ...node, ino: inodes++, mtimeMs: now(), ctimeMs: now() }) as T;
  const root: DirNode = make<DirNode>({
    type: "directory",
    entries: new Map(),
    parent: undefined,
    mode: DEFAULT_DIR_MODE,
  });
  const open = new Map<number, { node: Node; path?: string }>();

  const fail = (code: string, message: string): never => {
    throw new PortError(code, message);
  };
  const handleOf = (handle: number): Node => open.get(handle)?.node ?? fail("EBADF", `bad handle ${handle}`);
  const dirOf = (handle: number): DirNode => {
    const node = handleOf(handle);
    return node.type === "directory" ? node : fail("ENOTDIR", `handle ${handle} is not a directory`);
  };
  const fileOf = (handle: number): FileNode => {
    const node = handleOf(handle);
    return node.type === "file" ? node : fail("EBADF", `handle ${handle} is not a file`);
  };
  const register = (node: Node): number => {
    const handle = handles++;
    open.set(handle, { node });
    return handle;
  };
  const touch = (node: Node) => {
    node.mtimeMs = now();
    node.ctimeMs = now();
  };
  const checkName = (name: string) => {
    if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
      fail("EINVAL", `invalid component ${JSON.stringify(name)}`);
    }
  };
  const child = (dir: DirNode, name: string): Node | undefined => {
    checkName(name);
    return dir.entries.get(name);
  };

  /** Resolves an absolute path; follows links except at the leaf when `followLeaf` is false. */
  const walk = (path: string, followLeaf: boolean, hops = 0): { node: Node; canonical: string } => {
    if (hops > MAX_HOPS) fail("ELOOP", `too many links in ${path}`);
    if (!path.startsWith("/")) fail("EINVAL", `not absolute: ${path}`);
    let dir = root;
    const done: string[] = [];
    const parts = path.split("/").filter((p) => p !== "" && p !== ".");
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      if (part === "..") {
        dir = dir.parent ?? root;
        done.pop();
        continue;
      }
      const node = dir.entries.get(part) ?? fail("ENOENT", `no such file: ${path}`);
      const last = i === parts.length - 1;
      if (node.type === "symlink" && (!last || followLeaf)) {
        const base = node.target.startsWith("/") ? node.target : `/${done.join("/")}/${node.target}`;
        return walk(`${base}/${parts.slice(i + 1).join("/")}`, followLeaf, hops + 1);
      }
      if (last) return { node, canonical: `/${[...done, part].join("/")}` };
      if (node.type !== "directory") fail("ENOTDIR", `not a directory: ${path}`);
      dir = node as DirNode;
      done.push(part);
    }
    return { node: dir, canonical: `/${done.join("/")}` };
  };

  const parentOf = (path: string): { dir: DirNode; name: string } => {
    const cut = path.lastIndexOf("/");
    const name = path.slice(cut + 1);
    const { node } = walk(path.slice(0, cut) || "/", true);
    if (node.type !== "directory") fail("ENOTDIR", `not a directory: ${path}`);
    return { dir: node as DirNode, name };
  };

  const mkdirp = (path: string): DirNode => {
    let dir = root;
    for (const part of path.split("/").filter((p) => p !== "")) {
      let next = dir.entries.get(part);
      if (!next) {
        next = make<DirNode>({ type: "directory", entries: new Map(), parent: dir, mode: DEFAULT_DIR_MODE });
        dir.entries.set(part, next);
      }
      if (next.type === "symlink") next = walk(`/${part}`, true).node;
      if (next.type !== "directory") fail("ENOTDIR", `not a directory: ${path}`);
      dir = next as DirNode;
    }
    return dir;
  };

  const port: MemoryFs = {
    kind: "memory",

    async openRoot(path) {
      const { node, canonical } = walk(path, true);
      if (node.type !== "directory") fail("ENOTDIR", `not a directory: ${path}`);
      return { handle: register(node), canonical };
    },
    async canonicalize(path) {
      const missing: string[] = [];
      let current = path;
      for (;;) {
        try {
          const { canonical } = walk(current, true);
          return [canonical === "/" ? "" : canonical, ...missing.reverse()].join("/") || "/";
        } catch (error) {
          if ((error as PortError).code !== "ENOENT" || current === "/") throw error;
          const cut = current.lastIndexOf("/");
          missing.push(current.slice(cut + 1));
          current = current.slice(0, cut) || "/";
        }
      }
    },
    async ensureDirectory(path, mode) {
      mkdirp(path).mode = mode;
    },
    async lstat(dir, name) {
      const node = child(dirOf(dir), name);
      return node ? infoOf(node) : undefined;
    },
    async readlink(dir, name) {
      const node = child(dirOf(dir), name) ?? fail("ENOENT", `no such file: ${name}`);
      return node.type === "symlink" ? node.target : fail("EINVAL", `${name} is not a link`);
    },
    async openDir(dir, name) {
      const node = child(dirOf(dir), name) ?? fail("ENOENT", `no such file: ${name}`);
      if (node.type === "symlink") fail("ELOOP", `${name} is a symbolic link`);
      if (node.type !== "directory") fail("ENOTDIR", `${name} is not a directory`);
      return register(node);
    },
    async list(dir) {
      return [...dirOf(dir).entries].map(([name, node]): DirEntry => ({ name, type: node.type }));
    },
    async openFile(dir, name) {
      const node = child(dirOf(dir), name) ?? fail("ENOENT", `no such file: ${name}`);
      if (node.type === "symlink") fail("ELOOP", `${name} is a symbolic link`);
      if (node.type !== "file")
        fail(node.type === "directory" ? "EISDIR" : "ENOTREG", `${name} is a ${node.type}`);
      return { handle: register(node), info: infoOf(node) };
    },
    async fstat(handle) {
      return infoOf(handleOf(handle));
    },
    async read(handle, buffer, offset, length, position) {
      const data = fileOf(handle).data;
      const slice = data.subarray(Math.min(position, data.length), Math.min(position + length, data.length));
      buffer.set(slice, offset);
      return slice.length;
    },
    async createExclusive(dir, name, mode) {
      const parent = dirOf(dir);
      if (child(parent, name)) fail("EEXIST", `${name} exists`);
      const node = make<FileNode>({ type: "file", data: new Uint8Array(0), mode: mode & 0o7777, links: 1 });
      parent.entries.set(name, node);
      touch(parent);
      return register(node);
    },
    async write(handle, data) {
      const file = fileOf(handle);
      const next = new Uint8Array(file.data.length + data.length);
      next.set(file.data);
      next.set(data, file.data.length);
      file.data = next;
      touch(file);
    },
    async chmod(handle, mode) {
      const node = handleOf(handle);
      node.mode = mode & 0o7777;
      node.ctimeMs = now();
    },
    async sync() {},
    async close(handle) {
      if (!open.delete(handle)) fail("EBADF", `bad handle ${handle}`);
    },
    async rename(dir, from, to) {
      const parent = dirOf(dir);
      const node = child(parent, from) ?? fail("ENOENT", `no such file: ${from}`);
      const existing = child(parent, to);
      if (existing?.type === "directory" && node.type !== "directory") fail("EISDIR", `${to} is a directory`);
      if (existing?.type === "file") existing.links--;
      parent.entries.delete(from);
      parent.entries.set(to, node);
      touch(parent);
    },
    async link(dir, from, to) {
      const parent = dirOf(dir);
      const node = child(parent, from) ?? fail("ENOENT", `no such file: ${from}`);
      if (child(parent, to)) fail("EEXIST", `${to} exists`);
      if (node.type !== "file") fail("EPERM", `cannot link ${node.type}`);
      (node as FileNode).links++;
      parent.entries.set(to, node);
      touch(parent);
    },
    async unlink(dir, name) {
      const parent = dirOf(dir);
      const node = child(parent, name) ?? fail("ENOENT", `no such file: ${name}`);
      if (node.type === "directory") fail("EISDIR", `${name} is a directory`);
      if (node.type === "file") node.links--;
      parent.entries.delete(name);
      touch(parent);
    },
    async mkdir(dir, name, mode) {
      const parent = dirOf(dir);
      if (child(parent, name)) fail("EEXIST", `${name} exists`);
      parent.entries.set(name, make<DirNode>({ type: "directory", entries: new Map(), parent, mode }));
      touch(parent);
    },
    async rmdir(dir, name) {
      const parent = dirOf(dir);
      const node = child(parent, name) ?? fail("ENOENT", `no such file: ${name}`);
      if (node.type !== "directory") return fail("ENOTDIR", `${name} is not a directory`);
      if (node.entries.size > 0) fail("ENOTEMPTY", `${name} is not empty`);
      parent.entries.delete(name);
      touch(parent);
    },

    writeFile(path, content, mode = DEFAULT_FILE_MODE) {
      const cut = path.lastIndexOf("/");
      const dir = mkdirp(path.slice(0, cut));
      const data = typeof content === "string" ? new TextEncoder().encode(content) : Uint8Array.from(content);
      const existing = dir.entries.get(path.slice(cut + 1));
      if (existing?.type === "file") {
        existing.data = data;
        touch(existing);
        return;
      }
      dir.entries.set(path.slice(cut + 1), make<FileNode>({ type: "file", data, mode, links: 1 }));
    },
    readFile(path) {
      try {
        const { node } = walk(path, false);
        return node.type === "file" ? node.data : undefined;
      } catch {
        return undefined;
      }
    },
    mkdirp(path) {
      mkdirp(path);
    },
    symlink(target, path) {
      const { dir, name } = parentOf(path);
      if (dir.entries.has(name)) fail("EEXIST", `${path} exists`);
      dir.entries.set(name, make<LinkNode>({ type: "symlink", target, mode: 0o777 }));
    },
    mkfifo(path) {
      const { dir, name } = parentOf(path);
      if (dir.entries.has(name)) fail("EEXIST", `${path} exists`);
      dir.entries.set(name, make<SpecialNode>({ type: "fifo", mode: 0o644 }));
    },
    names(path) {
      const { node } = walk(path, true);
      if (node.type !== "directory") fail("ENOTDIR", `not a directory: ${path}`);
      return [...(node as DirNode).entries.keys()].sort();
    },
  };
  return port;
}

function infoOf(node: Node): EntryInfo {
  const type: EntryType = node.type;
  return {
    type,
    size: node.type === "file" ? node.data.length : node.type === "symlink" ? node.target.length : 0,
    mode: node.mode,
    mtimeMs: node.mtimeMs,
    ctimeMs: node.ctimeMs,
    dev: 1,
    ino: node.ino,
  };
}
