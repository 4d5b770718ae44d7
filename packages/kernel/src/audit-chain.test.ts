import { describe, expect, it } from "vitest";
import {
  AuditErrorCode,
  type AuditRecord,
  chainRecord,
  GENESIS_HASH,
  type LogEntry,
  recordHash,
  type StoredAuditRecord,
  verifyChain,
} from "./index.js";

function record(callId: string): AuditRecord {
  return {
    type: "tool.call",
    at: "2026-01-01T00:00:00.000Z",
    sessionId: "s1",
    turnId: "t1",
    callId,
    tool: "test.echo",
    providerName: "test_echo",
    argsHash: "0".repeat(64),
    argsPreview: "{}",
    mode: "agent",
    decision: "allow",
    layer: "default",
    rule: "default",
    reason: "no rule restricts this call",
    prompted: false,
    externalPath: false,
    permissionWaitMs: 0,
    durationMs: 1,
    overheadMs: 0,
    totalMs: 1,
    ok: true,
  };
}

function chain(n: number): StoredAuditRecord[] {
  const out: StoredAuditRecord[] = [];
  for (let i = 0; i < n; i++) out.push(chainRecord(record(`c${i}`), out[i - 1]));
  return out;
}

const entries = (records: readonly unknown[]): LogEntry[] =>
  records.map((record, position) => ({ position, record }));

describe("the audit hash chain", () => {
  it("links each record to the one before it, the first to the genesis hash", () => {
    const [a, b] = chain(2);
    expect(a).toMatchObject({ seq: 0, prev: GENESIS_HASH });
    expect(b).toMatchObject({ seq: 1, prev: a?.hash });
    expect(recordHash(b as StoredAuditRecord)).toBe(b?.hash);
    expect(verifyChain(entries(chain(5)))).toEqual({
      ok: true,
      records: 5,
      head: { seq: 4, hash: chain(5)[4]?.hash },
    });
  });

  it("names an edited record", () => {
    const log = chain(5);
    log[2] = { ...(log[2] as StoredAuditRecord), decision: "deny" };
    expect(verifyChain(entries(log)).problem).toMatchObject({
      code: AuditErrorCode.AUDIT_RECORD_CHANGED,
      position: 2,
      callId: "c2",
    });
  });

  it("names a record rewritten with a fresh hash by the link of its successor", () => {
    const log = chain(5);
    const edited = { ...(log[2] as StoredAuditRecord), ok: false };
    log[2] = { ...edited, hash: recordHash(edited) };
    expect(verifyChain(entries(log)).problem).toMatchObject({
      code: AuditErrorCode.AUDIT_RECORD_CHANGED,
      callId: "c2",
    });
  });

  it("names the record after a removed one", () => {
    const log = chain(5);
    log.splice(2, 1);
    expect(verifyChain(entries(log)).problem).toMatchObject({
      code: AuditErrorCode.AUDIT_RECORD_REMOVED,
      position: 2,
      callId: "c3",
    });
    expect(verifyChain(entries(chain(3).slice(1))).problem).toMatchObject({
      code: AuditErrorCode.AUDIT_RECORD_REMOVED,
      callId: "c1",
    });
  });

  it("names the first of two swapped records", () => {
    const log = chain(5);
    [log[1], log[3]] = [log[3] as StoredAuditRecord, log[1] as StoredAuditRecord];
    expect(verifyChain(entries(log)).problem).toMatchObject({
      code: AuditErrorCode.AUDIT_RECORD_REORDERED,
      position: 1,
      callId: "c3",
    });
  });

  it("names an inserted record, even one chained to its predecessor", () => {
    const log = chain(4);
    const forged = chainRecord(record("forged"), log[1]);
    expect(verifyChain(entries([...log.slice(0, 2), forged, ...log.slice(2)])).problem).toMatchObject({
      code: AuditErrorCode.AUDIT_RECORD_INSERTED,
      position: 2,
      callId: "forged",
    });
    const stray = { ...record("stray"), seq: 9, prev: "f".repeat(64) };
    const unlinked = { ...stray, hash: recordHash(stray) };
    expect(verifyChain(entries([...log.slice(0, 2), unlinked, ...log.slice(2)])).problem).toMatchObject({
      code: AuditErrorCode.AUDIT_RECORD_INSERTED,
      position: 2,
      callId: "stray",
    });
  });

  it("skips and lists entries that are not records, as long as the records around them link", () => {
    const torn: LogEntry[] = [...entries(chain(3)), { position: 3, unreadable: '{"type":"tool.ca' }];
    expect(verifyChain(torn)).toMatchObject({ ok: true, head: { seq: 2 }, unreadable: [3] });
    const replaced: LogEntry[] = entries(chain(3));
    replaced[1] = { position: 1, unreadable: "garbage" };
    expect(verifyChain(replaced)).toMatchObject({
      ok: false,
      unreadable: [1],
      problem: { code: AuditErrorCode.AUDIT_RECORD_REMOVED, position: 2 },
    });
  });

  it("starts the chain after records written before logs were chained, and says how many", () => {
    const legacy = [record("old1"), record("old2")];
    expect(verifyChain(entries([...legacy, ...chain(2)]))).toMatchObject({ ok: true, unchained: 2 });
  });
});
