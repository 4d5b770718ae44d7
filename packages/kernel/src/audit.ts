import type { Access } from "./access.js";
import type { Effect, Risk, ToolCategory } from "./tool.js";

/** How a call was decided, for the audit record. */
export type AuditDecision = "allow" | "deny";

/** What a record keeps of the tool itself, so a replay can re-decide it without the catalog. */
export interface AuditSubject {
  readonly risk: Risk;
  readonly category: ToolCategory;
  readonly effects: readonly Effect[];
  /** The tool's static scope (an MCP server, a skill): names, never content. */
  readonly scope?: readonly Access[];
}

/** An authority layer in force at the call, by ID and the SHA-256 of its canonical JSON. */
export interface AuditLayerHash {
  readonly id: string;
  readonly hash: string;
}

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
  /** The session's permission mode (never shown to the model; kept for what-if replay). */
  readonly permissionMode?: string;
  /** SHA-256 over the catalog's tool names and definition hashes at admission. */
  readonly catalogHash?: string;
  /** The effective authority layers at the call, outermost first. */
  readonly layers?: readonly AuditLayerHash[];
  /** The resolved tool's risk, category, effects and scope; absent for an unknown tool. */
  readonly subject?: AuditSubject;
  /**
   * The accesses the tool declared for this call, with secret-shaped text redacted; absent when
   * the call was refused before planning, or when the store keeps no accesses.
   */
  readonly accesses?: readonly Access[];
}

/** Where audit records go. Contract: must not throw; a sink that fails reports it elsewhere. */
export interface AuditSink {
  write(record: AuditRecord): void | Promise<void>;
  /**
   * Writes out whatever `write` queued. The kernel calls it after recording a call that was
   * cancelled or stopped at a deadline, since a host that cancels is often about to be ended.
   * Optional: a sink that writes each record as it comes has nothing to flush. Contract: must not throw.
   */
  flush?(): void | Promise<void>;
}

/** Keeps records in memory; for tests and embedding hosts. */
export class MemoryAuditSink implements AuditSink {
  readonly records: AuditRecord[] = [];
  write(record: AuditRecord): void {
    this.records.push(record);
  }
}
