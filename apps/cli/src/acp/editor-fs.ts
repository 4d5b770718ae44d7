import { readlinkSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { EntryInfo, FsPort } from "@pablo/fs";
import { PortError } from "@pablo/fs";

/** The two client methods the editor port uses; the ACP connection provides them. */
export interface EditorFiles {
  readonly canRead: boolean;
  readonly canWrite: boolean;
  read(path: string): Promise<string>;
  write(path: string, content: string): Promise<void>;
}

/**
 * A filesystem port that reads and writes workspace files through the editor (ACP
 * `fs/read_text_file` / `fs/write_text_file`), so the fs tools see unsaved buffers and their
 * changes land in the editor. Containment stays the local port's: every file is first opened
 * relative to its parent's descriptor without following links and checked to be a regular file;
 * only then is its text asked of the editor, by the path that descriptor really has. A write is
 * staged in the local temporary file exactly as on disk, and the install (the rename, or the
 * create-if-absent link) becomes one `fs/write_text_file` of the complete new text.
 *
 * Limits: the editor writes by path, so a link swapped in between the check and the editor's
 * write is the editor's to refuse; content that is not valid UTF-8 is read and installed on disk
 * as usual; files outside the workspace (the scratch root) never go through the editor.
 */
export function editorFs(local: FsPort, workspace: string, editor: EditorFiles): FsPort {
  const buffers = new Map<number, Uint8Array>();
  const staged = new Map<number, { dir: number; name: string; chunks: Uint8Array[] }>();
  const stagedByName = new Map<string, Uint8Array[]>();
  const inWorkspace = (path: string) => {
    const inside = relative(workspace, path);
    return inside === "" || (!inside.startsWith(`..${sep}`) && inside !== ".." && !inside.startsWith(sep));
  };
  const withSize = (info: EntryInfo, bytes: Uint8Array): EntryInfo => ({ ...info, size: bytes.byteLength });
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const textOf = (chunks: readonly Uint8Array[]): string | undefined => {
    try {
      return decoder.decode(Buffer.concat(chunks));
    } catch {
      return undefined;
    }
  };

  return {
    ...local,
    kind: "editor",
    async openFile(dir, name) {
      const opened = await local.openFile(dir, name);
      const path = join(pathOf(dir), name);
      if (!editor.canRead || !inWorkspace(path)) return opened;
      try {
        const bytes = new TextEncoder().encode(await editor.read(path));
        buffers.set(opened.handle, bytes);
        return { handle: opened.handle, info: withSize(opened.info, bytes) };
      } catch (error) {
        await local.close(opened.handle).catch(() => undefined);
        throw new PortError("EIO", `the editor could not read ${path}: ${messageOf(error)}`);
      }
    },
    async fstat(handle) {
      const info = await local.fstat(handle);
      const bytes = buffers.get(handle);
      return bytes ? withSize(info, bytes) : info;
    },
    async read(handle, buffer, offset, length, position) {
      const bytes = buffers.get(handle);
      if (!bytes) return local.read(handle, buffer, offset, length, position);
      const slice = bytes.subarray(position, Math.min(bytes.byteLength, position + length));
      buffer.set(slice, offset);
      return slice.byteLength;
    },
    async createExclusive(dir, name, mode) {
      const handle = await local.createExclusive(dir, name, mode);
      staged.set(handle, { dir, name, chunks: [] });
      return handle;
    },
    async write(handle, data) {
      await local.write(handle, data);
      staged.get(handle)?.chunks.push(Uint8Array.from(data));
    },
    async close(handle) {
      buffers.delete(handle);
      const file = staged.get(handle);
      if (file) {
        staged.delete(handle);
        stagedByName.set(`${file.dir}/${file.name}`, file.chunks);
      }
      await local.close(handle);
    },
    async rename(dir, from, to) {
      const text = takeStaged(dir, from);
      const path = join(pathOf(dir), to);
      if (text === undefined || !editor.canWrite || !inWorkspace(path)) return local.rename(dir, from, to);
      await editor.write(path, text);
      await local.unlink(dir, from);
    },
    async link(dir, from, to) {
      const text = takeStaged(dir, from);
      const path = join(pathOf(dir), to);
      if (text === undefined || !editor.canWrite || !inWorkspace(path)) return local.link(dir, from, to);
      if (await local.lstat(dir, to)) throw new PortError("EEXIST", `${to} exists`);
      await editor.write(path, text);
    },
    async unlink(dir, name) {
      stagedByName.delete(`${dir}/${name}`);
      await local.unlink(dir, name);
    },
  };

  function takeStaged(dir: number, name: string): string | undefined {
    const chunks = stagedByName.get(`${dir}/${name}`);
    stagedByName.delete(`${dir}/${name}`);
    return chunks ? textOf(chunks) : undefined;
  }
}

/** The path an open directory descriptor really has (the local port's handles are descriptors). */
function pathOf(handle: number): string {
  return readlinkSync(`/proc/self/fd/${handle}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
