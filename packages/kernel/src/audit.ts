/** How a call was decided, for the audit record. */
export type AuditDecision = "allow" | "deny";

/**
 * One record per call, denied calls included (with a zero tool body). Timings are in segments
 * (seed 001 section 9): the permission wait, the tool body and the kernel's own overhead.
 */
export interface AuditRecord {
  readonly type: "tool.call";
  readonly at: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly callId: string;
  readonly tool: string;
  readonly providerName: string;
  readonly requester?: string;
  /** SHA-256 of the canonical JSON of the arguments. */
  readonly argsHash: string;
  /** Redacted, bounded preview. */
  readonly argsPreview: string;
  readonly mode: string;
  readonly decision: AuditDecision;
  readonly layer: string;
  readonly rule: string;
  readonly reason: string;
  readonly prompted: boolean;
  readonly permissionAnswer?: "allow-once" | "allow-session" | "deny" | "timeout" | "cancelled" | "no-broker";
  readonly externalPath: boolean;
  readonly permissionWaitMs: number;
  readonly durationMs: number;
  readonly overheadMs: number;
  readonly totalMs: number;
  readonly ok: boolean;
  readonly errorCode?: string;
  readonly committed?: boolean;
  readonly truncated?: boolean;
  /** Tool-specific facts safe to keep (a skill's content hash, the tools ToolSearch loaded). */
  readonly notes?: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/** Where audit records go. Contract: must not throw; a sink that fails reports it elsewhere. */
export interface AuditSink {
  write(record: AuditRecord): void | Promise<void>;
}

/** Keeps records in memory; for tests and embedding hosts. */
export class MemoryAuditSink implements AuditSink {
  readonly records: AuditRecord[] = [];
  write(record: AuditRecord): void {
    this.records.push(record);
  }
}
