import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { AuditStoreKind } from "../index.js";

const WRITER = fileURLToPath(new URL("./writer.ts", import.meta.url));

/** A running writer child and the call IDs it has acknowledged so far. */
export interface Writer {
  readonly child: ChildProcess;
  readonly acked: string[];
  /** Resolves once the child acknowledged its first record. */
  readonly started: Promise<void>;
  readonly exited: Promise<number | null>;
}

export function spawnWriter(kind: AuditStoreKind, path: string, name: string, count = 0): Writer {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, kind, path, name, String(count)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const acked: string[] = [];
  let buffered = "";
  let onFirst: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    onFirst = resolve;
  });
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) if (line.startsWith("ack ")) acked.push(line.slice(4));
    if (acked.length > 0) onFirst();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, acked, started, exited };
}
