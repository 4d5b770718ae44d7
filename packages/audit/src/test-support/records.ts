import type { AuditRecord } from "@pablo/kernel";

/** A plausible call record; `i` makes it unique. */
export function sampleRecord(i: number, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    type: "tool.call",
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    sessionId: "s1",
    turnId: "t1",
    callId: `c${i}`,
    tool: "fs.read",
    providerName: "fs_read",
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
    durationMs: 2,
    overheadMs: 1,
    totalMs: 3,
    ok: true,
    ...overrides,
  };
}
