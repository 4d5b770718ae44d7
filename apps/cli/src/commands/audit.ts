import { existsSync } from "node:fs";
import type { AuditRecord } from "@pablo/kernel";
import { readAuditFile } from "@pablo/kernel/node";
import { Exit } from "../exit-codes.js";
import { type Io, printJson } from "../output.js";

/** `pablo audit show [--file F] [--json] [--session ID] [--last N]`: the audit file as a readable timeline. */
export function auditShowCommand(
  io: Io,
  options: { file: string; json: boolean; session?: string; last?: number },
): number {
  if (!existsSync(options.file)) {
    io.stderr(`pablo: no audit file at ${options.file} [NOT_FOUND]\n`);
    return Exit.FAILED;
  }
  const { records, invalidLines } = readAuditFile(options.file);
  let selected = options.session ? records.filter((r) => r.sessionId === options.session) : records;
  if (options.last !== undefined) selected = selected.slice(-options.last);
  if (options.json) {
    printJson(io, { file: options.file, records: selected, invalidLines });
    return Exit.OK;
  }
  let session = "";
  for (const record of selected) {
    if (record.sessionId !== session) {
      session = record.sessionId;
      io.stdout(`session ${session}\n`);
    }
    io.stdout(`${timelineLine(record)}\n`);
  }
  if (invalidLines > 0)
    io.stdout(`(${invalidLines} unreadable line${invalidLines === 1 ? "" : "s"} skipped)\n`);
  return Exit.OK;
}

function timelineLine(r: AuditRecord): string {
  const time = r.at.slice(11, 23);
  const outcome = r.ok ? "ok" : (r.errorCode ?? "error");
  const decision =
    r.decision === "deny" ? `denied by ${r.layer}/${r.rule}` : `allowed (${r.layer}/${r.rule})`;
  const prompt = r.prompted ? ` asked: ${r.permissionAnswer ?? "?"} after ${r.permissionWaitMs} ms` : "";
  const flags = [r.committed ? "committed" : "", r.truncated ? "truncated" : ""].filter(Boolean).join(" ");
  return `  ${time}  ${r.tool.padEnd(24)} ${outcome.padEnd(18)} ${decision}${prompt}  ${r.totalMs} ms${flags ? `  ${flags}` : ""}`;
}
