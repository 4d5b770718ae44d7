import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { renderTimeline, serveTimeline } from "@pablo/audit";
import type { AuditRecord } from "@pablo/kernel";
import { Exit } from "../exit-codes.js";
import type { Io } from "../output.js";
import { type AuditStoreChoice, openChosenStore } from "./audit-store.js";

/**
 * `pablo audit view [--session ID] [--port N] [--out FILE]`: the timeline page of one session
 * (the most recent one unless `--session` names another), written to FILE or served on
 * 127.0.0.1 until interrupted.
 */
export async function auditViewCommand(
  io: Io,
  options: { store: AuditStoreChoice; session?: string; port?: number; out?: string },
): Promise<number> {
  if (!existsSync(options.store.path)) {
    io.stderr(`pablo: no audit store at ${options.store.path} [NOT_FOUND]\n`);
    return Exit.FAILED;
  }
  const records = await sessionRecords(options.store, options.session);
  if (records.length === 0) {
    io.stderr(`pablo: no records${options.session ? ` for session ${options.session}` : ""} [NOT_FOUND]\n`);
    return Exit.FAILED;
  }
  const html = renderTimeline(records, { title: `session ${records[0]?.sessionId}` });
  if (options.out) {
    const out = resolve(io.cwd, options.out);
    writeFileSync(out, html);
    io.stdout(`wrote ${records.length} call(s) to ${out}\n`);
    return Exit.OK;
  }
  const server = await serveTimeline(html, options.port ?? 0);
  io.stdout(`timeline of ${records.length} call(s) at ${server.url} (Ctrl-C to stop)\n`);
  await new Promise<void>((done) => {
    if (io.signal.aborted) done();
    else io.signal.addEventListener("abort", () => done(), { once: true });
  });
  await server.close();
  return Exit.OK;
}

async function sessionRecords(choice: AuditStoreChoice, session: string | undefined): Promise<AuditRecord[]> {
  const store = openChosenStore(choice);
  try {
    const all: AuditRecord[] = [];
    for await (const r of store.records(session ? { sessionId: session } : {})) all.push(r);
    const chosen = session ?? all[all.length - 1]?.sessionId;
    return all.filter((r) => r.sessionId === chosen);
  } finally {
    await store.close();
  }
}
