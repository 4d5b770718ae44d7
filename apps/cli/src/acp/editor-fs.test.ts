import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalFs } from "@pablo/fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { type EditorFiles, editorFs } from "./editor-fs.js";

function workspace(files: Record<string, string> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "pablo-editor-fs-")));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function editor(buffers: Record<string, string> = {}) {
  const asked: string[] = [];
  const written: { path: string; content: string }[] = [];
  const files: EditorFiles = {
    canRead: true,
    canWrite: true,
    read: async (path) => {
      asked.push(path);
      return buffers[path] ?? readFileSync(path, "utf8");
    },
    write: async (path, content) => {
      written.push({ path, content });
      writeFileSync(path, content);
    },
  };
  return { files, asked, written };
}

async function readAll(port: ReturnType<typeof editorFs>, root: number, name: string): Promise<string> {
  const { handle, info } = await port.openFile(root, name);
  const buffer = new Uint8Array(info.size);
  const n = await port.read(handle, buffer, 0, info.size, 0);
  await port.close(handle);
  return new TextDecoder().decode(buffer.subarray(0, n));
}

async function install(port: ReturnType<typeof editorFs>, root: number, name: string, bytes: Uint8Array) {
  const handle = await port.createExclusive(root, ".tmp-1", 0o644);
  await port.write(handle, bytes);
  await port.close(handle);
  await port.rename(root, ".tmp-1", name);
}

describe("the editor filesystem port", () => {
  it("reads a workspace file's unsaved buffer, with the size of the buffer", async () => {
    const dir = workspace({ "a.txt": "on disk\n" });
    const { files, asked } = editor({ [join(dir, "a.txt")]: "unsaved and longer\n" });
    const port = editorFs(createLocalFs(), dir, files);
    const { handle } = await port.openRoot(dir);
    expect(await readAll(port, handle, "a.txt")).toBe("unsaved and longer\n");
    expect(asked).toEqual([join(dir, "a.txt")]);
  });

  it("refuses a symlinked leaf before the editor is asked", async () => {
    const dir = workspace({ "real.txt": "x" });
    symlinkSync(join(dir, "real.txt"), join(dir, "link.txt"));
    const { files, asked } = editor();
    const port = editorFs(createLocalFs(), dir, files);
    const { handle } = await port.openRoot(dir);
    await expect(port.openFile(handle, "link.txt")).rejects.toMatchObject({ code: "ELOOP" });
    expect(asked).toEqual([]);
  });

  it("installs complete UTF-8 text with one editor write and leaves no temporary file", async () => {
    const dir = workspace({ "a.txt": "old\n" });
    const { files, written } = editor();
    const port = editorFs(createLocalFs(), dir, files);
    const { handle } = await port.openRoot(dir);
    await install(port, handle, "a.txt", new TextEncoder().encode("new text\n"));
    expect(written).toEqual([{ path: join(dir, "a.txt"), content: "new text\n" }]);
    expect(readdirSync(dir)).toEqual(["a.txt"]);
  });

  it("installs bytes that are not UTF-8 on disk, atomically, without the editor", async () => {
    const dir = workspace({ "a.bin": "old" });
    const { files, written } = editor();
    const port = editorFs(createLocalFs(), dir, files);
    const { handle } = await port.openRoot(dir);
    await install(port, handle, "a.bin", Uint8Array.from([0xff, 0xfe, 0x00]));
    expect(written).toEqual([]);
    expect([...readFileSync(join(dir, "a.bin"))]).toEqual([0xff, 0xfe, 0x00]);
  });

  it("never routes files outside the workspace (the scratch root) through the editor", async () => {
    const dir = workspace();
    const scratch = workspace({ "s.txt": "scratch\n" });
    const { files, asked } = editor();
    const port = editorFs(createLocalFs(), dir, files);
    const { handle } = await port.openRoot(scratch);
    expect(await readAll(port, handle, "s.txt")).toBe("scratch\n");
    expect(asked).toEqual([]);
    expect(existsSync(join(scratch, "s.txt"))).toBe(true);
  });
});
