import { ErrorCode, fail, type Session } from "@pablo/kernel";
import type { AgentMessage, Model, ModelRequest, ModelToolCall } from "../model/types.js";
import { dispatchBatch } from "./dispatch-batch.js";
import type { AgentEventListener, RunStatus } from "./events.js";
import type { LoopRuntime } from "./loop-runtime.js";
import { modelTurn, type TurnEnd } from "./model-turn.js";
import { type OfferOptions, offeredTools } from "./offered-tools.js";
import type { RunReport } from "./run-report.js";
import { systemPrompt } from "./system-prompt.js";

export interface TurnsContext {
  readonly session: Session;
  readonly model: Model;
  readonly messages: AgentMessage[];
  readonly runtime: LoopRuntime;
  readonly report: RunReport;
  readonly emit: AgentEventListener;
  readonly signal: AbortSignal;
  readonly agent: string;
  readonly instructions: string;
  readonly offer: OfferOptions;
  readonly compact: (messages: AgentMessage[]) => void;
}

export interface TurnsEnd {
  readonly status: RunStatus;
  readonly reason?: string;
  readonly text: string;
  readonly turns: number;
}

/**
 * The loop proper: build the request (mode, tools of this turn, on-demand catalog), check the
 * request bound (compacting once when over), spend a model call, stream the response, then run
 * its tool calls through the kernel and go again, until the model answers without a call.
 */
export async function runTurns(ctx: TurnsContext): Promise<TurnsEnd> {
  const { session, messages, runtime, report, emit, signal, agent } = ctx;
  const limits = session.budget.limits;
  let turns = 0;
  let text = "";
  const end = (status: RunStatus, reason?: string): TurnsEnd => ({
    status,
    ...(reason !== undefined ? { reason } : {}),
    text,
    turns,
  });
  const compact = (reason: "requested" | "budget") => {
    const before = messages.length;
    ctx.compact(messages);
    runtime.compactionRequested = false;
    report.compactions++;
    emit({
      type: "context.compacted",
      agent,
      reason,
      messagesBefore: before,
      messagesAfter: messages.length,
    });
  };

  for (;;) {
    if (signal.aborted) return end("cancelled", "the run was cancelled");
    if (runtime.compactionRequested) compact("requested");
    let built = buildRequest(ctx);
    if (built.bytes > limits.requestContextBytes && messages.length > 1) {
      compact("budget");
      built = buildRequest(ctx);
    }
    if (built.bytes > limits.requestContextBytes) {
      return end(
        "limit",
        `the request is ${built.bytes} bytes, over the ${limits.requestContextBytes}-byte request limit`,
      );
    }
    report.largestRequestBytes = Math.max(report.largestRequestBytes, built.bytes);
    const grant = session.budget.takeModelCall();
    if (!grant.ok) return end("budget", grant.reason);
    turns++;
    emit({
      type: "model.request",
      agent,
      turn: turns,
      tools: built.request.tools.length,
      onDemand: built.notLoaded.size,
      bytes: built.bytes,
    });
    const deadline = deadlineSignal(signal, session.budget.remainingMs());
    const out = await modelTurn(ctx.model, built.request, {
      signal: deadline.signal,
      maxOutputBytes: limits.modelOutputBytes,
      emit,
      turn: turns,
    }).finally(deadline.dispose);
    report.outputBytes += out.outputBytes;
    if (out.text !== "") text = out.text;
    const calls = out.toolCalls;
    if (out.text !== "" || calls.length > 0)
      messages.push({ role: "assistant", text: out.text, toolCalls: calls });
    const stop = stopFor(out.end, calls.length, signal);
    if (stop) {
      if (calls.length > 0) messages.push(unrun(calls, stop.reason ?? stop.status));
      return end(stop.status, stop.reason);
    }
    if (calls.length === 0) return end(runtime.rejectedSubmission ? "not-approved" : "completed");
    runtime.beginBatch(calls.map((c) => c.id));
    const batch = await dispatchBatch(calls, {
      session,
      agent,
      offered: built.offered,
      report,
      emit,
      signal,
    });
    messages.push({ role: "tool", results: batch.results });
    if (batch.terminate) return end("terminated", batch.terminate);
    // A spent budget refuses every later call too: stop here and say so, rather than let the
    // model answer as if the task were done.
    if (batch.budgetExhausted) return end("budget", batch.budgetExhausted);
  }
}

function buildRequest(ctx: TurnsContext) {
  const offered = offeredTools(ctx.session, ctx.offer);
  const request: ModelRequest = {
    agent: ctx.agent,
    system: systemPrompt(ctx.session.mode, ctx.instructions, offered.onDemand),
    messages: ctx.messages,
    tools: offered.tools,
    deadline: ctx.session.budget.deadline,
  };
  const bytes = Buffer.byteLength(
    JSON.stringify({ system: request.system, messages: request.messages, tools: request.tools }),
    "utf8",
  );
  return { request, bytes, offered, notLoaded: offered.notLoaded };
}

function stopFor(
  end: TurnEnd,
  calls: number,
  signal: AbortSignal,
): { status: RunStatus; reason?: string } | undefined {
  switch (end.kind) {
    case "aborted":
      return signal.aborted
        ? { status: "cancelled", reason: "the run was cancelled" }
        : { status: "budget", reason: "the run deadline has passed" };
    case "limit":
      return { status: "limit", reason: end.message };
    case "error":
      return { status: "model-error", reason: `${end.code}: ${end.message}` };
    case "finish":
      if (end.reason === "refusal") return { status: "refused", reason: "the model declined to continue" };
      if (end.reason === "incomplete") {
        return {
          status: "model-error",
          reason: "MODEL_STREAM_INCOMPLETE: the stream ended before the provider finished the response",
        };
      }
      if (end.reason === "length" && calls === 0) {
        return { status: "incomplete", reason: "the model reached its output token limit before finishing" };
      }
      return undefined;
  }
}

/** Results for calls the loop will not run, so the conversation stays well-formed for the next prompt. */
function unrun(calls: readonly ModelToolCall[], why: string): AgentMessage {
  return {
    role: "tool",
    results: calls.map((call) => ({
      id: call.id,
      name: call.name,
      output: JSON.stringify(fail(ErrorCode.TOOL_CANCELLED, `not run: ${why}`)),
      isError: true,
    })),
  };
}

/** Aborts with the run's signal or when the run deadline passes. */
function deadlineSignal(
  signal: AbortSignal,
  remainingMs: number,
): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });
  const timer = setTimeout(
    () => controller.abort(new Error("the run deadline has passed")),
    Math.min(remainingMs, 2_147_483_647),
  );
  timer.unref?.();
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", forward);
    },
  };
}
