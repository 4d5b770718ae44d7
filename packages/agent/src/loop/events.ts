import type { JsonValue, OperatingMode } from "@pablo/kernel";
import type { FinishReason, TokenUsage } from "../model/types.js";

/**
 * How a prompt ended. `completed`: the model answered without a tool call. `cancelled`: the
 * user or host stopped it. `budget`: model calls or the run deadline ran out. `limit`: a
 * response or a request passed its byte bound. `refused`: the model declined. `incomplete`: the
 * model hit its token limit mid-answer. `model-error`: the provider failed. `terminated`: a tool
 * result asked the loop to stop (seed 001, 4d). `not-approved`: a plan or goal submission was
 * not approved and the model stopped there.
 */
export type RunStatus =
  | "completed"
  | "cancelled"
  | "budget"
  | "limit"
  | "refused"
  | "incomplete"
  | "model-error"
  | "terminated"
  | "not-approved";

/** One dispatched (or loop-refused) tool call. */
export interface CallRecord {
  readonly agent: string;
  readonly callId: string;
  /** Native name when the catalog resolved it, else what the model called. */
  readonly tool: string;
  readonly ok: boolean;
  readonly code?: string;
  readonly decision: "allow" | "deny";
  readonly layer: string;
  readonly rule: string;
  readonly prompted: boolean;
  readonly permissionWaitMs: number;
  readonly durationMs: number;
  readonly committed: boolean;
  /** A file the call read or wrote, with the revision it saw or made. */
  readonly file?: { readonly path: string; readonly revision: string };
  /** The review snapshot of a workspace change, for rollback. */
  readonly review?: { readonly path: string; readonly id: string };
}

/** A call refused by policy, the operating mode or a permission answer. */
export interface Denial {
  readonly agent: string;
  readonly callId: string;
  readonly tool: string;
  readonly code: string;
  readonly layer: string;
  readonly rule: string;
}

export interface FileChange {
  readonly path: string;
  readonly reviewId: string;
  readonly callId: string;
  readonly tool: string;
}

/** A plan or goal preserved under `.pablo/`. */
export interface SubmittedArtifact {
  readonly kind: "plan" | "goal";
  /** Workspace-relative path. */
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly approved: boolean;
  readonly answer: string;
}

export interface BudgetUsage {
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly elapsedMs: number;
  readonly remainingMs: number;
  readonly events: number;
  readonly eventsDropped: number;
  readonly outputBytes: number;
  readonly largestRequestBytes: number;
  readonly compactions: number;
}

export interface AgentRunResult {
  readonly status: RunStatus;
  /** Why it ended, when not `completed`. */
  readonly reason?: string;
  /** The model's last answer text. */
  readonly text: string;
  readonly turns: number;
  readonly calls: readonly CallRecord[];
  readonly denials: readonly Denial[];
  readonly changes: readonly FileChange[];
  readonly artifacts: readonly SubmittedArtifact[];
  /** Calls whose change is installed, whatever happened after (what a cancelled run committed). */
  readonly committed: readonly string[];
  readonly budgets: BudgetUsage;
}

/**
 * What the loop reports while it works. Events carry names, decisions, codes, sizes and
 * timings; model text (the answer) and tool progress (a command's output, streamed to the user
 * who runs it) are included; tool arguments and results are not.
 */
export type AgentEvent =
  | { readonly type: "prompt.started"; readonly agent: string; readonly mode: OperatingMode }
  | {
      readonly type: "model.request";
      readonly agent: string;
      readonly turn: number;
      readonly tools: number;
      readonly onDemand: number;
      readonly bytes: number;
    }
  | { readonly type: "model.text"; readonly agent: string; readonly text: string }
  | {
      readonly type: "model.retry";
      readonly agent: string;
      readonly attempt: number;
      readonly delayMs: number;
      readonly status?: number;
      readonly message: string;
    }
  | { readonly type: "model.warning"; readonly agent: string; readonly message: string }
  | {
      readonly type: "model.finished";
      readonly agent: string;
      readonly turn: number;
      readonly reason: FinishReason | "error";
      readonly toolCalls: number;
      readonly usage?: TokenUsage;
    }
  | {
      readonly type: "tool.requested";
      readonly agent: string;
      readonly callId: string;
      readonly tool: string;
    }
  /** A running call's progress (a command's output), as the tool streamed it to the caller. */
  | {
      readonly type: "tool.progress";
      readonly agent: string;
      readonly callId: string;
      readonly tool: string;
      readonly kind: string;
      readonly data: JsonValue;
    }
  | ({ readonly type: "tool.result" } & CallRecord)
  | {
      readonly type: "mode.changed";
      readonly agent: string;
      readonly from: OperatingMode;
      readonly to: OperatingMode;
    }
  | {
      readonly type: "context.compacted";
      readonly agent: string;
      readonly reason: "requested" | "budget";
      readonly messagesBefore: number;
      readonly messagesAfter: number;
    }
  | ({ readonly type: "artifact.saved"; readonly agent: string } & SubmittedArtifact)
  | {
      readonly type: "question.asked";
      readonly agent: string;
      readonly questions: number;
      readonly answered: number;
    }
  | {
      readonly type: "child.state";
      readonly child: string;
      readonly state: ChildState;
      readonly position?: number;
    }
  | {
      readonly type: "prompt.finished";
      readonly agent: string;
      readonly status: RunStatus;
      readonly reason?: string;
    };

export type ChildState = "queued" | "running" | "completed" | "failed" | "cancelled";

/** Receives loop events. Contract: must not throw and must not block. */
export type AgentEventListener = (event: AgentEvent) => void;
