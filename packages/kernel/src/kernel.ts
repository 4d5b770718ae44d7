import type { Tracer } from "@opentelemetry/api";
import type { AuditRecord, AuditSink } from "./audit.js";
import type { Decision } from "./authority.js";
import type { Catalog, CatalogEntry } from "./catalog.js";
import type { ToolErrorCode } from "./errors.js";
import type { EventSink } from "./events.js";
import type { Limits } from "./limits.js";
import type { PermissionBroker, PermissionProfile } from "./permission.js";
import type { AuthorityLayer } from "./policy-schema.js";
import { Session } from "./session.js";
import type { OperatingMode, ToolProgress, ToolResult } from "./tool.js";

/** Options shared by every session of one kernel. */
export interface KernelOptions {
  readonly limits?: Partial<Limits>;
  readonly audit?: AuditSink;
  readonly events?: EventSink;
  /** Native events carry arguments and results only when this is on. Spans never do. */
  readonly captureContent?: boolean;
  readonly tracer?: Tracer;
  readonly broker?: PermissionBroker;
  /** How long a tool may take to settle after its signal aborts before the call is reported. */
  readonly cleanupGraceMs?: number;
  readonly now?: () => number;
}

export interface SessionOptions {
  readonly catalog: Catalog;
  /** Outermost first: distribution ceiling, deployment, CLI flags, session, child. */
  readonly layers?: readonly AuthorityLayer[];
  readonly sessionId?: string;
  readonly mode?: OperatingMode;
  readonly permission?: PermissionProfile;
  /** `sequential` (default) runs one call at a time; `parallel-reads` serializes only mutations. */
  readonly concurrency?: "sequential" | "parallel-reads";
  /** A child shares its parent's budget and narrows its layers. */
  readonly parent?: Session;
  /** Named in permission requests and audit records (a delegate or child). */
  readonly requester?: string;
  /**
   * With a parent: `shared` (default) makes allow-session grants one set for the parent and all
   * its delegates (seed 001, 10.2); `own` gives a supervised child grants of its own.
   */
  readonly grants?: "shared" | "own";
}

export interface CallRequest {
  /** Provider name or native name. */
  readonly tool: string;
  /** Parsed arguments, or the raw JSON text exactly as the model produced it. */
  readonly args: unknown;
  /** Defaults to a kernel-made `call_<session>_<n>`. */
  readonly callId?: string;
  readonly turnId?: string;
  readonly signal?: AbortSignal;
  readonly requester?: string;
  /** Receives the tool's progress (streamed output, MCP progress) as it happens. Contract: must not throw. */
  readonly onProgress?: (progress: ToolProgress) => void;
}

export interface CallOutcome {
  /** What the model receives: bounded after serialization. */
  readonly result: ToolResult;
  /** `result` serialized, within the result bound. */
  readonly serialized: string;
  readonly decision: Decision;
  readonly audit: AuditRecord;
}

/**
 * A dry run's answer: what dispatch would do, running nothing. Decided by the same function as
 * the call itself: `deny` is the code, layer and rule the call would be refused with, `ask` means
 * the call would prompt, `allow` that it would run without one.
 */
export interface DryRunDecision {
  readonly decision: "allow" | "ask" | "deny";
  readonly layer: string;
  readonly rule: string;
  readonly reason: string;
  readonly code?: ToolErrorCode;
}

/** A tool as a session sees it: visible or excluded, and why. */
export interface ToolVisibility {
  readonly entry: CatalogEntry;
  readonly visible: boolean;
  readonly decision: Decision;
  readonly code?: ToolErrorCode;
}

/** The kernel: opens sessions that dispatch calls through the governed pipeline. */
export interface Kernel {
  readonly options: KernelOptions;
  openSession(options: SessionOptions): Session;
}

export function createKernel(options: KernelOptions = {}): Kernel {
  return { options, openSession: (sessionOptions) => new Session(options, sessionOptions) };
}
