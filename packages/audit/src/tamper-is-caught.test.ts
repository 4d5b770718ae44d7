import { AuditErrorCode } from "@pablo/kernel";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openAuditStore } from "./index.js";
import { fillStore, KINDS, rawLog, storePath, tempDir } from "./test-support/stores.js";

type Tamper = (texts: string[]) => string[];

const TAMPERS: Array<[string, Tamper, { code: string; position: number; callId: string }]> = [
  [
    "an edited record",
    (t) => t.map((x, i) => (i === 3 ? x.replace('"decision":"allow"', '"decision":"deny"') : x)),
    { code: AuditErrorCode.AUDIT_RECORD_CHANGED, position: 3, callId: "c3" },
  ],
  [
    "a deleted record",
    (t) => t.filter((_, i) => i !== 3),
    { code: AuditErrorCode.AUDIT_RECORD_REMOVED, position: 3, callId: "c4" },
  ],
  [
    "two swapped records",
    (t) => [t[0], t[1], t[4], t[3], t[2], t[5]] as string[],
    { code: AuditErrorCode.AUDIT_RECORD_REORDERED, position: 2, callId: "c4" },
  ],
  [
    "an inserted copy of a record",
    (t) => [...t.slice(0, 4), t[1] as string, ...t.slice(4)],
    { code: AuditErrorCode.AUDIT_RECORD_INSERTED, position: 4, callId: "c1" },
  ],
];

describe.each(KINDS)("the %s store under tampering", (kind) => {
  it("verifies an untouched log", async () => {
    const path = storePath(tempDir(), kind);
    fillStore(kind, path, 6);
    const store = openAuditStore({ kind, path });
    expect(await store.verify()).toMatchObject({ ok: true, records: 6, head: { seq: 5 } });
    await store.close();
  });

  it.each(TAMPERS)("names the first bad record after %s", async (_what, tamper, expected) => {
    const path = storePath(tempDir(), kind);
    fillStore(kind, path, 6);
    const log = rawLog(kind, path);
    log.rewrite(tamper(log.texts));
    const store = openAuditStore({ kind, path });
    const report = await store.verify();
    expect(report.ok).toBe(false);
    expect(report.problem).toMatchObject(expected);
    await store.close();
  });
});

describe("the sqlite store's filter columns", () => {
  it("count as part of the record: a row whose copy disagrees with its JSON is named", async () => {
    const path = storePath(tempDir(), "sqlite");
    fillStore("sqlite", path, 3);
    const db = new Database(path);
    db.prepare("UPDATE audit_records SET decision = 'deny' WHERE id = 2").run();
    db.close();
    const store = openAuditStore({ kind: "sqlite", path });
    expect((await store.verify()).problem).toMatchObject({
      code: AuditErrorCode.AUDIT_RECORD_CHANGED,
      position: 1,
      callId: "c1",
    });
    const denied = [];
    for await (const r of store.records({ decision: "deny" })) denied.push(r.callId);
    expect(denied).toEqual(["c1"]);
    await store.close();
  });
});
