import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuditRecord } from "@pablo/kernel";
import Database from "better-sqlite3";
import { onTestFinished } from "vitest";
import { type AuditStoreKind, openAuditStore } from "../index.js";
import { sampleRecord } from "./records.js";

export { sampleRecord };

export const KINDS: readonly AuditStoreKind[] = ["jsonl", "sqlite"];

/** A fresh directory removed when the test finishes. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "pablo-audit-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function storePath(dir: string, kind: AuditStoreKind): string {
  return join(dir, kind === "sqlite" ? "audit.sqlite" : "audit.jsonl");
}

/** Writes `n` sample records to a new store of `kind` at `path`. */
export function fillStore(kind: AuditStoreKind, path: string, n: number): void {
  const store = openAuditStore({ kind, path });
  for (let i = 0; i < n; i++) store.write(sampleRecord(i));
  void store.close();
}

/**
 * The stored records as JSON texts in log order, and a way to put a changed list back: lines of
 * the file, or rows of the table rewritten in the new order with their filter columns matching.
 * This is what someone with write access to the store's file can do.
 */
export function rawLog(
  kind: AuditStoreKind,
  path: string,
): { texts: string[]; rewrite(texts: string[]): void } {
  if (kind === "jsonl") {
    return {
      texts: readFileSync(path, "utf8").trimEnd().split("\n"),
      rewrite: (texts) => writeFileSync(path, `${texts.join("\n")}\n`),
    };
  }
  const db = new Database(path);
  const texts = (
    db.prepare("SELECT record FROM audit_records ORDER BY id").all() as { record: string }[]
  ).map((r) => r.record);
  db.close();
  return {
    texts,
    rewrite: (next) => {
      const write = new Database(path);
      const insert = write.prepare(
        `INSERT INTO audit_records (id, seq, at, session_id, tool, decision, error_code, hash, record)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      write.transaction(() => {
        write.exec("DELETE FROM audit_records");
        next.forEach((text, i) => {
          const r = JSON.parse(text) as AuditRecord & { seq: number; hash: string };
          insert.run(i + 1, r.seq, r.at, r.sessionId, r.tool, r.decision, r.errorCode ?? null, r.hash, text);
        });
      })();
      write.close();
    },
  };
}
