import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createMemoryFs } from "../port/memory.js";
import type { FsPort } from "../port/types.js";
import { useTempDir } from "./harness.js";

/** A workspace on one port, with helpers that set it up and inspect it from the outside. */
export interface PortWorkspace {
  readonly kind: "local" | "memory";
  readonly ws: string;
  readonly io: FsPort | undefined;
  write(path: string, content: string | Uint8Array, mode?: number): void;
  read(path: string): string | undefined;
  symlink(target: string, path: string): void;
}

/** Both ports, for `describe.each`: the real disk in a temporary directory, and the virtual sandbox. */
export const PORTS = ["local", "memory"] as const;

export function portWorkspace(kind: "local" | "memory"): PortWorkspace {
  if (kind === "memory") {
    const io = createMemoryFs();
    io.mkdirp("/ws");
    return {
      kind,
      ws: "/ws",
      io,
      write: (path, content, mode) => io.writeFile(`/ws/${path}`, content, mode),
      read: (path) => {
        const bytes = io.readFile(`/ws/${path}`);
        return bytes ? Buffer.from(bytes).toString("utf8") : undefined;
      },
      symlink: (target, path) => io.symlink(target, `/ws/${path}`),
    };
  }
  const ws = useTempDir();
  return {
    kind,
    ws,
    io: undefined,
    write: (path, content, mode) => {
      mkdirSync(dirname(join(ws, path)), { recursive: true });
      writeFileSync(join(ws, path), content);
      if (mode !== undefined) chmodSync(join(ws, path), mode);
    },
    read: (path) => {
      try {
        return readFileSync(join(ws, path), "utf8");
      } catch {
        return undefined;
      }
    },
    symlink: (target, path) => symlinkSync(target, join(ws, path)),
  };
}
