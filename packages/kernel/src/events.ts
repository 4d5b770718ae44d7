import type { JsonValue } from "./json.js";
import type { ToolResult } from "./tool.js";

/**
 * Native events. Without content capture they carry operational facts only: names, decisions,
 * codes, counts and timings, never arguments, paths or content.
 */
export type KernelEvent =
  | {
      readonly type: "tool.started";
      readonly at: number;
      readonly sessionId: string;
      readonly callId: string;
      readonly tool: string;
      readonly args?: JsonValue;
    }
  | {
      readonly type: "tool.progress";
      readonly at: number;
      readonly sessionId: string;
      readonly callId: string;
      readonly tool: string;
      readonly kind: string;
      readonly bytes: number;
      readonly data?: JsonValue;
    }
  | {
      readonly type: "tool.finished";
      readonly at: number;
      readonly sessionId: string;
      readonly callId: string;
      readonly tool: string;
      readonly ok: boolean;
      readonly errorCode?: string;
      readonly durationMs: number;
      readonly truncated: boolean;
      /** The result as the tool returned it (before bounding); only with content capture on. */
      readonly result?: ToolResult;
    }
  | {
      readonly type: "tool.denied";
      readonly at: number;
      readonly sessionId: string;
      readonly callId: string;
      readonly tool: string;
      readonly layer: string;
      readonly rule: string;
      readonly code: string;
    }
  | {
      readonly type: "permission.requested";
      readonly at: number;
      readonly sessionId: string;
      readonly callId: string;
      readonly tool: string;
      readonly rule: string;
    }
  | {
      readonly type: "permission.answered";
      readonly at: number;
      readonly sessionId: string;
      readonly callId: string;
      readonly tool: string;
      readonly answer: string;
      readonly waitMs: number;
    };

/** Receives native events. Contract: must not throw and must not block. */
export interface EventSink {
  emit(event: KernelEvent): void;
}

/** Keeps events in memory; for tests and embedding hosts. */
export class MemoryEventSink implements EventSink {
  readonly events: KernelEvent[] = [];
  emit(event: KernelEvent): void {
    this.events.push(event);
  }
}
