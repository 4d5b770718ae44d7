import type { FsPort } from "@pablo/fs";
import { BrowserErrorCode } from "./errors.js";

/** A workspace file the server may send: its bytes, read through descriptors opened without links. */
export interface ServedFile {
  readonly ok: true;
  /** Canonical absolute path (lexical under the canonical root: no link was followed). */
  readonly path: string;
  readonly name: string;
  readonly bytes: Buffer;
}

/** Why a path is not served, as the HTTP status the page sees and the code a tool result carries. */
export interface Refusal {
  readonly ok: false;
  readonly status: 403 | 404 | 413;
  readonly code: BrowserErrorCode;
  readonly message: string;
}

/** The open workspace the server reads from. */
export interface WorkspaceFiles {
  readonly canonical: string;
  /** Resolves and reads one file; a directory serves its `index.html`. Contract: never throws. */
  read(components: readonly string[], maxBytes: number): Promise<ServedFile | Refusal>;
  close(): Promise<void>;
}

export const INDEX_FILE = "index.html";

/**
 * Opens the workspace through @pablo/fs's filesystem port, whose every `(dir, name)` call opens
 * one component relative to an open directory descriptor with `O_NOFOLLOW`: a symbolic link at
 * any component is refused rather than followed, special files are refused after `fstat`, and a
 * swap between check and use cannot redirect the open.
 */
export async function openWorkspaceFiles(io: FsPort, workspace: string): Promise<WorkspaceFiles> {
  const root = await io.openRoot(workspace);
  return {
    canonical: root.canonical,
    read: (components, maxBytes) => readFile(io, root, components, maxBytes),
    close: () => io.close(root.handle),
  };
}

async function readFile(
  io: FsPort,
  root: { handle: number; canonical: string },
  components: readonly string[],
  maxBytes: number,
): Promise<ServedFile | Refusal> {
  const opened: number[] = [];
  // The component being opened and its parent, set before each open, so that a failure can be
  // classified by looking at what is there (a link or not).
  let at = { dir: root.handle, name: "." };
  try {
    const names = [...components];
    let leaf = names.pop();
    for (const name of names) {
      at = { dir: at.dir, name };
      at = { dir: await io.openDir(at.dir, name), name };
      opened.push(at.dir);
    }
    if (leaf === undefined || (await io.lstat(at.dir, leaf))?.type === "directory") {
      if (leaf !== undefined) {
        at = { dir: at.dir, name: leaf };
        at = { dir: await io.openDir(at.dir, leaf), name: leaf };
        opened.push(at.dir);
        names.push(leaf);
      }
      leaf = INDEX_FILE;
    }
    const shown = [...names, leaf].join("/");
    at = { dir: at.dir, name: leaf };
    const file = await io.openFile(at.dir, leaf);
    opened.push(file.handle);
    if (file.info.size > maxBytes) {
      return refuse(
        413,
        BrowserErrorCode.LIMIT_EXCEEDED,
        `${shown} has ${file.info.size} bytes, over ${maxBytes}`,
      );
    }
    const bytes = await readAll(io, file.handle, file.info.size);
    const path = root.canonical === "/" ? `/${shown}` : `${root.canonical}/${shown}`;
    return { ok: true, path, name: leaf, bytes };
  } catch (error) {
    const link = (await io.lstat(at.dir, at.name).catch(() => undefined))?.type === "symlink";
    return refusalOf(error, link, components);
  } finally {
    for (const handle of opened.reverse()) await io.close(handle).catch(() => undefined);
  }
}

/** Up to `size` bytes from the start of an open file (the size `fstat` saw when it was opened). */
async function readAll(io: FsPort, handle: number, size: number): Promise<Buffer> {
  const bytes = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const n = await io.read(handle, bytes, filled, size - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return bytes.subarray(0, filled);
}

function refusalOf(error: unknown, link: boolean, components: readonly string[]): Refusal {
  const shown = components.join("/") || ".";
  // O_NOFOLLOW reports a link as ELOOP, O_DIRECTORY as ENOTDIR: either way it is never followed.
  if (link) return refuse(403, BrowserErrorCode.SYMLINK_REFUSED, `${shown} crosses a symbolic link`);
  const code = error !== null && typeof error === "object" && "code" in error ? String(error.code) : "";
  switch (code) {
    case "ENOENT":
      return refuse(404, BrowserErrorCode.NOT_FOUND, `${shown} does not exist in the workspace`);
    case "ENOTDIR":
      return refuse(
        404,
        BrowserErrorCode.NOT_FOUND,
        `${shown} goes through something that is not a directory`,
      );
    case "ENOTREG":
      return refuse(403, BrowserErrorCode.SPECIAL_FILE, `${shown} is not a regular file`);
    default:
      return refuse(403, BrowserErrorCode.TOOL_FAILED, `${shown} cannot be read: ${String(error)}`);
  }
}

function refuse(status: Refusal["status"], code: BrowserErrorCode, message: string): Refusal {
  return { ok: false, status, code, message };
}
