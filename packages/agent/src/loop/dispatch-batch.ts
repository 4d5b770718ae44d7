import { ErrorCode, fail, type Session, type ToolFailure } from "@pablo/kernel";
import { AgentErrorCode, EXCLUSIVE_TOOLS } from "../control/names.js";
import type { ModelToolCall, ToolResultMessage } from "../model/types.js";
import type { AgentEventListener } from "./events.js";
import type { OfferedTools } from "./offered-tools.js";
import type { RunReport } from "./run-report.js";

export interface BatchContext {
  readonly session: Session;
  readonly agent: string;
  readonly offered: OfferedTools;
  readonly report: RunReport;
  readonly emit: AgentEventListener;
  readonly signal: AbortSignal;
}

export interface BatchOutcome {
  readonly results: ToolResultMessage[];
  /** Set when a result asked the loop to stop (seed 001, 4d). */
  readonly terminate?: string;
  /** Set when a call was refused because a shared budget is spent: the run stops on it. */
  readonly budgetExhausted?: string;
}

/**
 * Runs one assistant batch, in order, through the kernel. The loop itself answers, without
 * dispatching: calls to a deferred tool not yet loaded, the other calls of a batch that holds a
 * tool that must stand alone, and calls left when the turn was cancelled or a result terminated it.
 */
export async function dispatchBatch(
  calls: readonly ModelToolCall[],
  context: BatchContext,
): Promise<BatchOutcome> {
  const { session, agent, report, emit } = context;
  const results: ToolResultMessage[] = [];
  const exclusive = calls.length > 1 ? calls.find((c) => isExclusive(session, c.name)) : undefined;
  let terminate: string | undefined;
  let budgetExhausted: string | undefined;
  for (const call of calls) {
    const native = session.catalog.resolve(call.name)?.name ?? call.name;
    emit({ type: "tool.requested", agent, callId: call.id, tool: native });
    const local = localRefusal(call, native, context, exclusive, terminate);
    if (local) {
      const record = report.local(agent, call.id, native, String(local.failure.error.code), local.rule);
      emit({ type: "tool.result", ...record });
      results.push({ id: call.id, name: call.name, output: JSON.stringify(local.failure), isError: true });
      continue;
    }
    const outcome = await session.call({
      tool: call.name,
      args: call.input,
      callId: call.id,
      signal: context.signal,
      onProgress: (progress) =>
        emit({
          type: "tool.progress",
          agent,
          callId: call.id,
          tool: native,
          kind: progress.kind,
          data: progress.data,
        }),
    });
    const effects = session.catalog.resolve(call.name)?.definition.effects ?? [];
    const record = report.fromOutcome(agent, call.id, outcome, effects);
    emit({ type: "tool.result", ...record });
    results.push({ id: call.id, name: call.name, output: outcome.serialized, isError: !outcome.result.ok });
    if (!outcome.result.ok && outcome.result.error.terminate) {
      terminate = `${native} ended the turn: ${outcome.result.error.message}`;
    }
    if (!outcome.result.ok && outcome.result.error.code === ErrorCode.BUDGET_EXHAUSTED) {
      budgetExhausted ??= outcome.result.error.message;
    }
  }
  return {
    results,
    ...(terminate ? { terminate } : {}),
    ...(budgetExhausted ? { budgetExhausted } : {}),
  };
}

function localRefusal(
  call: ModelToolCall,
  native: string,
  context: BatchContext,
  exclusive: ModelToolCall | undefined,
  terminated: string | undefined,
): { failure: ToolFailure; rule: string } | undefined {
  if (context.signal.aborted) {
    return {
      failure: fail(ErrorCode.TOOL_CANCELLED, "not started: the turn was cancelled"),
      rule: "loop.cancelled",
    };
  }
  if (terminated) {
    return { failure: fail(ErrorCode.TOOL_CANCELLED, `not started: ${terminated}`), rule: "loop.terminated" };
  }
  if (exclusive && exclusive !== call && !EXCLUSIVE_TOOLS.has(native)) {
    return {
      failure: fail(
        AgentErrorCode.BATCH_REFUSED,
        `not run: ${exclusive.name} must be the only tool call in its response, so no call of this response ran`,
      ),
      rule: "loop.batch-exclusive",
    };
  }
  if (context.offered.notLoaded.has(call.name)) {
    return {
      failure: fail(
        AgentErrorCode.TOOL_NOT_LOADED,
        `${call.name} is an on-demand tool that is not loaded; call ToolSearch with its name first, then call it in your next turn`,
      ),
      rule: "loop.not-loaded",
    };
  }
  return undefined;
}

function isExclusive(session: Session, name: string): boolean {
  const entry = session.catalog.resolve(name);
  return entry !== undefined && EXCLUSIVE_TOOLS.has(entry.name);
}
