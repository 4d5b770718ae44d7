import { existsSync } from "node:fs";
import { Exit } from "../exit-codes.js";
import { type Io, printJson } from "../output.js";
import { type AuditStoreChoice, openChosenStore } from "./audit-store.js";

/**
 * `pablo audit verify [--file F] [--json]`: walks the store's hash chain. Exit 0 when it holds,
 * 1 naming the first record that was changed, removed, reordered or inserted.
 */
export async function auditVerifyCommand(
  io: Io,
  options: { store: AuditStoreChoice; json: boolean },
): Promise<number> {
  const { store: choice } = options;
  if (!existsSync(choice.path)) {
    io.stderr(`pablo: no audit store at ${choice.path} [NOT_FOUND]\n`);
    return Exit.FAILED;
  }
  const store = openChosenStore(choice);
  try {
    const report = await store.verify();
    if (options.json) {
      printJson(io, { store: choice.kind, path: choice.path, ...report });
      return report.ok ? Exit.OK : Exit.FAILED;
    }
    // `records` counts every entry read; the ones that are not records were skipped, not verified.
    const unreadable = report.unreadable ?? [];
    const skipped = unreadable.length
      ? `; skipped ${unreadable.length} unreadable entr${unreadable.length === 1 ? "y" : "ies"} at ${unreadable.join(", ")}`
      : "";
    const legacy = report.unchained
      ? `; the first ${report.unchained} record(s) predate the chain and are not covered`
      : "";
    if (report.ok) {
      const head = report.head ? `; head seq ${report.head.seq} ${report.head.hash}` : "";
      io.stdout(
        `verified ${report.records - unreadable.length} record(s) in ${choice.path}${head}${legacy}${skipped}\n`,
      );
      return Exit.OK;
    }
    const p = report.problem;
    const which = [
      `record ${p?.position}`,
      p?.seq !== undefined ? `seq ${p.seq}` : "",
      p?.callId ? `call ${p.callId}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    io.stdout(`${p?.code}: ${which}: ${p?.message}${skipped}\n`);
    return Exit.FAILED;
  } finally {
    await store.close();
  }
}
