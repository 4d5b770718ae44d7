import type { OperatingMode, Session, ToolContext, ToolResult } from "@pablo/kernel";
import type { SubmittedArtifact } from "../loop/events.js";

/** One question asktool puts to the user. */
export interface Question {
  readonly question: string;
  /** Suggested answers; the user may still type another. */
  readonly options?: readonly string[];
}

/**
 * How the host asks the user (a terminal prompt, an editor panel). Contract: resolves with one
 * entry per question, `undefined` for a skipped one; once `signal` aborts it resolves promptly
 * with every unanswered question skipped; it never throws.
 */
export interface QuestionPort {
  ask(
    questions: readonly Question[],
    options: { readonly signal: AbortSignal; readonly requester: string | undefined },
  ): Promise<readonly (string | undefined)[]>;
}

/** The answer to a plan or goal approval request. Only `approved` approves. */
export type ApprovalAnswer = "approved" | "rejected" | "timeout" | "cancelled" | "no-channel";

export interface ApprovalRequest {
  readonly kind: "plan" | "goal";
  /** Workspace-relative path of the preserved artifact. */
  readonly path: string;
  readonly bytes: number;
  /** The beginning of the Markdown, for the approval card. */
  readonly preview: string;
}

/**
 * What the control tools may ask of the loop that is running the calling session. Each
 * operation validates its own preconditions (host validation): the visible tool list is only
 * guidance.
 */
export interface AgentRuntime {
  readonly session: Session;
  readonly agent: string;
  /** Calls in the assistant batch that contains `callId` (0 when the loop did not issue it). */
  batchSize(callId: string): number;
  /** Compacts the conversation at the next turn boundary. */
  requestCompaction(): void;
  /** Moves Agent to Plan or Goal after checking the mode, the batch and that nothing else runs. */
  enterMode(to: Exclude<OperatingMode, "agent">, ctx: ToolContext): ToolResult;
  /** Asks the user to approve a preserved plan or goal through the permission broker's channel. */
  approve(request: ApprovalRequest, ctx: ToolContext): Promise<ApprovalAnswer>;
  /** Records the outcome of a submission; an approved one returns the session to Agent mode. */
  submitted(artifact: SubmittedArtifact): void;
  ask(questions: readonly Question[], ctx: ToolContext): Promise<readonly (string | undefined)[]>;
  /** Runs a Task delegate to completion. */
  runTask(subagent: string, prompt: string, ctx: ToolContext): Promise<ToolResult>;
  startChild(task: string, ctx: ToolContext): ToolResult;
  waitChild(child: string, timeoutMs: number, ctx: ToolContext): Promise<ToolResult>;
  handoff(child: string, artifact: string | undefined, ctx: ToolContext): Promise<ToolResult>;
}
