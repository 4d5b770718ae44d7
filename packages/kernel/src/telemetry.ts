import type { Span, Tracer } from "@opentelemetry/api";
import type { Decision } from "./authority.js";
import type { EventSink, KernelEvent } from "./events.js";
import type { Budget } from "./limits.js";
import type { ToolResult } from "./tool.js";
import { endCallSpan, startCallSpan } from "./trace.js";

/** What the telemetry of one session needs from its kernel's options. */
export interface TelemetryOptions {
  readonly events?: EventSink | undefined;
  readonly tracer?: Tracer | undefined;
  readonly captureContent?: boolean | undefined;
}

/** How one call ended, for its `tool.denied` event and its span. */
export interface CallEnd {
  readonly callId: string;
  readonly tool: string;
  readonly decision: Decision;
  readonly result: ToolResult;
  readonly prompted: boolean;
  readonly permissionWaitMs: number;
  readonly durationMs: number;
}

/**
 * A session's native events and spans. Events count against the run's event budget and are
 * dropped past it; a sink that throws is ignored. Spans never carry content.
 */
export class Telemetry {
  readonly #options: TelemetryOptions;
  readonly #budget: Budget;
  readonly #now: () => number;
  readonly #sessionId: string;

  constructor(options: TelemetryOptions, budget: Budget, now: () => number, sessionId: string) {
    this.#options = options;
    this.#budget = budget;
    this.#now = now;
    this.#sessionId = sessionId;
  }

  /** Whether native events may carry arguments, progress data and results. */
  get captureContent(): boolean {
    return this.#options.captureContent === true;
  }

  emit(event: KernelEvent): void {
    const sink = this.#options.events;
    if (!sink || !this.#budget.takeEvent()) return;
    try {
      sink.emit(event);
    } catch {
      // Contract: sinks do not throw.
    }
  }

  startCall(tool: string, callId: string, mode: string): Span | undefined {
    return startCallSpan(this.#options.tracer, { tool, sessionId: this.#sessionId, callId, mode });
  }

  /** Emits `tool.denied` for a denied call and ends the call's span. */
  endCall(span: Span | undefined, end: CallEnd): void {
    const { decision, result } = end;
    const errorCode = result.ok ? undefined : String(result.error.code);
    if (decision.verdict === "deny") {
      this.emit({
        type: "tool.denied",
        at: this.#now(),
        sessionId: this.#sessionId,
        callId: end.callId,
        tool: end.tool,
        layer: decision.layer,
        rule: decision.rule,
        code: errorCode ?? "",
      });
    }
    endCallSpan(span, {
      decision: decision.verdict,
      layer: decision.layer,
      rule: decision.rule,
      ok: result.ok,
      errorCode,
      prompted: end.prompted,
      permissionWaitMs: end.permissionWaitMs,
      durationMs: end.durationMs,
      truncated: result.truncated !== undefined,
    });
  }
}
