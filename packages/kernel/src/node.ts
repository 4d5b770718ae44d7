/**
 * Node-only parts of the kernel: the JSONL audit store and the state directory. Kept behind
 * `@pablo/kernel/node` so the kernel's main entry stays free of file I/O.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { AuditRecord } from "./audit.js";
import { isCallRecord } from "./audit-jsonl.js";

/**
 * The JSONL store under the name hosts already use: it chains each record and writes it at the end
 * of the turn, at once after a cancelled call, and at exit (see {@link JsonlAuditStore}).
 */
export {
  JsonlAuditStore,
  JsonlAuditStore as JsonlAuditSink,
  type JsonlAuditStoreOptions,
  readLogEntries,
} from "./audit-jsonl.js";

/** Reads an audit file, skipping an incomplete last line; returns the records and a count of bad lines. */
export function readAuditFile(path: string): { records: AuditRecord[]; invalidLines: number } {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  if (!text.endsWith("\n")) lines.pop();
  const records: AuditRecord[] = [];
  let invalidLines = 0;
  for (const line of lines) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      invalidLines++;
      continue;
    }
    // Valid JSON that is no call record (`null`, `{}`, one without its time) is invalid too.
    if (isCallRecord(value)) records.push(value);
    else invalidLines++;
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
