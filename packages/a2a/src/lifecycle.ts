import { TaskState } from "@a2a-js/sdk";
import { A2aErrorCode } from "./codes.js";

/** The local supervised lifecycle children use; a remote task is mapped onto it. */
export type LocalState = "queued" | "running" | "completed" | "failed" | "cancelled";

export interface StateMapping {
  /** The remote's state as the protocol names it, lower-case: `input-required`. */
  readonly remote: string;
  readonly local: LocalState;
  /** Whether the remote task will not move on by itself (final, or paused for something we cannot give). */
  readonly settled: boolean;
  /** The result code when the call ends in this state without success. */
  readonly code?: A2aErrorCode;
}

/**
 * The documented mapping (README "Lifecycle"): submitted → queued, working → running,
 * completed → completed, failed / rejected → failed, canceled → cancelled, and the two paused
 * states input-required / auth-required → failed with their own codes, because one call sends
 * one message and cannot answer a question or authenticate.
 */
export function mapState(state: TaskState | undefined): StateMapping {
  switch (state) {
    case TaskState.TASK_STATE_SUBMITTED:
      return { remote: "submitted", local: "queued", settled: false };
    case TaskState.TASK_STATE_WORKING:
      return { remote: "working", local: "running", settled: false };
    case TaskState.TASK_STATE_COMPLETED:
      return { remote: "completed", local: "completed", settled: true };
    case TaskState.TASK_STATE_FAILED:
      return { remote: "failed", local: "failed", settled: true, code: A2aErrorCode.REMOTE_FAILED };
    case TaskState.TASK_STATE_CANCELED:
      return { remote: "canceled", local: "cancelled", settled: true, code: A2aErrorCode.REMOTE_CANCELED };
    case TaskState.TASK_STATE_REJECTED:
      return { remote: "rejected", local: "failed", settled: true, code: A2aErrorCode.REMOTE_REJECTED };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return { remote: "input-required", local: "failed", settled: true, code: A2aErrorCode.INPUT_REQUIRED };
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return { remote: "auth-required", local: "failed", settled: true, code: A2aErrorCode.AUTH_REQUIRED };
    default:
      return { remote: "unspecified", local: "running", settled: false };
  }
}

/** Paused states leave the remote task open; Pablo cancels it, since it no longer owns it. */
export function isPaused(mapping: StateMapping): boolean {
  return mapping.remote === "input-required" || mapping.remote === "auth-required";
}
