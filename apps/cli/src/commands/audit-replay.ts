import { existsSync } from "node:fs";
import { type ReplayReport, type ReplayVerdict, replayStore } from "@pablo/audit";
import type { AuditFilter } from "@pablo/kernel";
import type { TaskEnvironment } from "../distribution.js";
import { Exit } from "../exit-codes.js";
import { type Io, printJson } from "../output.js";
import { type AuditStoreChoice, openChosenStore } from "./audit-store.js";

/**
 * `pablo audit replay --policy NEW.json | --config NEW.toml [--session ID] [--since T] [--json]`:
 * re-decides every recorded call under the layers `task` was opened with (the new authority),
 * with each record's own mode and permission mode. Runs no tool and writes nothing.
 */
export async function auditReplayCommand(
  io: Io,
  task: TaskEnvironment,
  options: { store: AuditStoreChoice; json: boolean; session?: string; since?: string },
): Promise<number> {
  if (!existsSync(options.store.path)) {
    io.stderr(`pablo: no audit store at ${options.store.path} [NOT_FOUND]\n`);
    return Exit.FAILED;
  }
  const filter: AuditFilter = {
    ...(options.session ? { sessionId: options.session } : {}),
    ...(options.since ? { since: options.since } : {}),
  };
  const store = openChosenStore(options.store);
  try {
    const report = await replayStore(store, task.session.layers, filter);
    if (options.json) printJson(io, { layers: task.session.layers.map((l) => l.id), ...report });
    else io.stdout(replayText(report));
    return Exit.OK;
  } finally {
    await store.close();
  }
}

/** `--since`: an ISO time, or a span back from now such as `30m`, `24h`, `7d`. */
export function parseSince(value: string, now = Date.now()): string | undefined {
  const span = /^(\d+)([smhd])$/.exec(value);
  if (span) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as "s" | "m" | "h" | "d"];
    return new Date(now - Number(span[1]) * unit).toISOString();
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
}

function replayText(report: ReplayReport): string {
  const count = (kind: string) => report.changes.filter((c) => c.kind === kind).length;
  const lines = [
    `replayed ${report.total} call(s): ${count("now-denied")} now denied, ${count("now-allowed")} now allowed, ` +
      `${count("rule-changed")} decided by another rule, ${report.unchanged} unchanged, ${report.undetermined.length} undetermined`,
  ];
  for (const c of report.changes) {
    lines.push(
      `  ${c.kind.padEnd(12)} ${c.at}  ${c.callId}  ${c.tool}  ${verdict(c.before)} -> ${verdict(c.after)}`,
    );
  }
  for (const u of report.undetermined)
    lines.push(`  undetermined ${u.at}  ${u.callId}  ${u.tool}  ${u.reason}`);
  return `${lines.join("\n")}\n`;
}

function verdict(v: ReplayVerdict): string {
  const word = v.verdict === "deny" ? "denied" : v.verdict === "ask" ? "asks" : "allowed";
  return `${word} by ${v.layer}/${v.rule}`;
}
