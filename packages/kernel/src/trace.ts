import { type Span, SpanStatusCode, type Tracer } from "@opentelemetry/api";

/** Span attributes: operational facts only. Spans never carry arguments, paths or content. */
export interface CallSpanFacts {
  readonly tool: string;
  readonly sessionId: string;
  readonly callId: string;
  readonly mode: string;
}

export interface CallSpanOutcome {
  readonly decision: "allow" | "deny";
  readonly layer: string;
  readonly rule: string;
  readonly ok: boolean;
  readonly errorCode: string | undefined;
  readonly prompted: boolean;
  readonly permissionWaitMs: number;
  readonly durationMs: number;
  readonly truncated: boolean;
}

/** Starts the span of one tool call, or nothing when tracing is off. */
export function startCallSpan(tracer: Tracer | undefined, facts: CallSpanFacts): Span | undefined {
  return tracer?.startSpan("pablo.tool.call", {
    attributes: {
      "pablo.tool.name": facts.tool,
      "pablo.session.id": facts.sessionId,
      "pablo.call.id": facts.callId,
      "pablo.mode": facts.mode,
    },
  });
}

/** Ends the span with the call's outcome. */
export function endCallSpan(span: Span | undefined, outcome: CallSpanOutcome): void {
  if (!span) return;
  span.setAttributes({
    "pablo.decision": outcome.decision,
    "pablo.decision.layer": outcome.layer,
    "pablo.decision.rule": outcome.rule,
    "pablo.ok": outcome.ok,
    "pablo.prompted": outcome.prompted,
    "pablo.permission_wait_ms": outcome.permissionWaitMs,
    "pablo.duration_ms": outcome.durationMs,
    "pablo.truncated": outcome.truncated,
    ...(outcome.errorCode ? { "pablo.error.code": outcome.errorCode } : {}),
  });
  span.setStatus(
    outcome.ok
      ? { code: SpanStatusCode.OK }
      : { code: SpanStatusCode.ERROR, message: outcome.errorCode ?? "error" },
  );
  span.end();
}
