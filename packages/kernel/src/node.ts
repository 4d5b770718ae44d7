/**
 * Node-only parts of the kernel: the JSONL audit sink and the state directory. Kept behind
 * `@pablo/kernel/node` so the kernel's main entry stays free of file I/O.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { AuditRecord, AuditSink } from "./audit.js";

/**
 * Appends one JSON line per record. The file is opened with `O_APPEND`; records are queued and
 * written at the end of the current event-loop turn, each batch of complete lines in one
 * `write(2)`, so concurrent writers never interleave within a line and a reader only ever sees
 * whole records. Queued records are flushed on `close()`, on `flush()` and when the process exits;
 * a process killed outright can lose the records of its last turn.
 */
export class JsonlAuditSink implements AuditSink {
  readonly path: string;
  #fd: number | undefined;
  #pending: string[] = [];
  #scheduled = false;
  #pendingBytes = 0;
  readonly #onExit = () => this.flush();

  constructor(path: string) {
    this.path = path;
  }

  write(record: AuditRecord): void {
    const line = `${JSON.stringify(record)}\n`;
    this.#pending.push(line);
    this.#pendingBytes += line.length;
    // A host that dispatches in a tight loop may not yield to the event loop for a long time:
    // bound what waits in memory.
    if (this.#pendingBytes >= MAX_PENDING_CHARS) {
      this.flush();
      return;
    }
    if (!this.#scheduled) {
      this.#scheduled = true;
      if (this.#fd === undefined) this.#open();
      setImmediate(() => this.flush());
    }
  }

  /** Writes every queued record now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0) return;
    if (this.#fd === undefined) this.#open();
    const fd = this.#fd as number;
    const data = Buffer.from(this.#pending.join(""), "utf8");
    this.#pending = [];
    this.#pendingBytes = 0;
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
  }

  close(): void {
    this.flush();
    if (this.#fd !== undefined) {
      closeSync(this.#fd);
      process.removeListener("exit", this.#onExit);
    }
    this.#fd = undefined;
  }

  /** Bytes written so far, from the open descriptor. */
  size(): number {
    return this.#fd === undefined ? 0 : fstatSync(this.#fd).size;
  }

  #open(): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    this.#fd = openSync(this.path, "a", 0o600);
    process.on("exit", this.#onExit);
  }
}

const MAX_PENDING_CHARS = 64 * 1024;

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
