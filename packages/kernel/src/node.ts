/**
 * Node-only parts of the kernel: the JSONL audit sink and the state directory. Kept behind
 * `@pablo/kernel/node` so the kernel's main entry stays free of file I/O.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { AuditRecord, AuditSink } from "./audit.js";

/**
 * Appends one JSON line per record. The file is opened with `O_APPEND` and each record is one
 * `write(2)` of a complete line, so concurrent writers never interleave within a line and a reader
 * sees only whole records (plus, at worst, one incomplete last line while a write is in flight).
 */
export class JsonlAuditSink implements AuditSink {
  readonly path: string;
  #fd: number | undefined;

  constructor(path: string) {
    this.path = path;
  }

  write(record: AuditRecord): void {
    if (this.#fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.#fd = openSync(this.path, "a", 0o600);
    }
    const line = Buffer.from(`${JSON.stringify(record)}\n`, "utf8");
    let written = 0;
    while (written < line.length) written += writeSync(this.#fd, line, written, line.length - written);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Bytes written so far, from the open descriptor. */
  size(): number {
    return this.#fd === undefined ? 0 : fstatSync(this.#fd).size;
  }
}

/** Reads an audit file, skipping an incomplete last line; returns the records and a count of bad lines. */
export function readAuditFile(path: string): { records: AuditRecord[]; invalidLines: number } {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  if (!text.endsWith("\n")) lines.pop();
  const records: AuditRecord[] = [];
  let invalidLines = 0;
  for (const line of lines) {
    if (line.trim() === "") continue;
    try {
      records.push(JSON.parse(line) as AuditRecord);
    } catch {
      invalidLines++;
    }
  }
  return { records, invalidLines };
}

/**
 * Pablo's state directory: `$XDG_STATE_HOME/pablo`, else `~/.local/state/pablo`. Audit logs live
 * here, never inside a workspace unless a deployment says so.
 */
export function stateDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env["XDG_STATE_HOME"];
  if (xdg && isAbsolute(xdg)) return join(xdg, "pablo");
  return join(env["HOME"] && isAbsolute(env["HOME"]) ? env["HOME"] : homedir(), ".local", "state", "pablo");
}

/** The default audit file: `<state>/audit.jsonl`. */
export function defaultAuditPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDirectory(env), "audit.jsonl");
}
