import { randomUUID } from "node:crypto";
import { type Message, Role, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { ErrorCode, fail, type JsonObject, ok, type ToolContext, type ToolResult } from "@pablo/kernel";
import { ArtifactCollector, artifactReceipt, retainArtifact } from "./artifact.js";
import { boundedText } from "./card.js";
import { A2aErrorCode } from "./codes.js";
import { MessageTooLarge, RedirectRefused } from "./guarded-fetch.js";
import { isPaused, mapState, type StateMapping } from "./lifecycle.js";

/** The bounds one call runs under; every one of them ends the call with a coded result. */
export interface CallBounds {
  readonly operationTimeoutMs: number;
  readonly cancelTimeoutMs: number;
  readonly pollIntervalMs: number;
  readonly maxEvents: number;
  readonly maxArtifactBytes: number;
}

export interface RemoteCall {
  readonly remote: string;
  readonly client: Client;
  readonly streaming: boolean;
  readonly bounds: CallBounds;
}

/** Stops the stream or the polling loop with a result already decided. */
class Stop extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Progress {
  taskId?: string;
  mapping: StateMapping;
  statusText?: string;
  usage?: JsonObject;
  events: number;
}

/**
 * Sends one message to the remote and follows its task to a settled state: over SSE when the
 * card declares streaming, else send + bounded polling of GetTask. Every state change reaches
 * the host as a content-free progress event. The call ends within the operation deadline, the
 * run's deadline and the event and artifact caps; on cancellation or any of those it sends one
 * bounded CancelTask and says the remote outcome is unknown.
 */
export async function runRemoteCall(call: RemoteCall, text: string, ctx: ToolContext): Promise<ToolResult> {
  const budgetMs = Math.max(0, Math.min(call.bounds.operationTimeoutMs, ctx.deadline - Date.now()));
  const timeout = AbortSignal.timeout(budgetMs);
  const local = new AbortController();
  const signal = AbortSignal.any([ctx.signal, timeout, local.signal]);
  const artifact = new ArtifactCollector(call.bounds.maxArtifactBytes);
  const progress: Progress = { mapping: mapState(undefined), events: 0 };
  const observe = (state: TaskState | undefined, task: { id: string; statusText?: string }) => {
    progress.taskId ??= task.id;
    const mapping = mapState(state);
    if (task.statusText !== undefined) progress.statusText = task.statusText;
    if (mapping.remote !== progress.mapping.remote) {
      progress.mapping = mapping;
      ctx.progress({
        kind: "a2a.state",
        data: { remote: call.remote, task_id: task.id, state: mapping.local, remote_state: mapping.remote },
      });
    }
  };
  const count = () => {
    if (++progress.events > call.bounds.maxEvents)
      throw new Stop(A2aErrorCode.EVENT_LIMIT, `the remote sent more than ${call.bounds.maxEvents} events`);
  };
  const message: Message = {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  try {
    if (call.streaming) await streamTask(call, message, signal, { observe, count, artifact, progress });
    else await pollTask(call, message, signal, { observe, count, artifact, progress });
  } catch (error) {
    local.abort();
    return await endEarly(call, progress, error, { ctx, timeout });
  }
  return settle(call, progress, artifact, ctx);
}

interface Sink {
  observe(state: TaskState | undefined, task: { id: string; statusText?: string }): void;
  count(): void;
  readonly artifact: ArtifactCollector;
  readonly progress: Progress;
}

async function streamTask(
  call: RemoteCall,
  message: Message,
  signal: AbortSignal,
  sink: Sink,
): Promise<void> {
  const request = { tenant: "", message, configuration: undefined, metadata: undefined };
  const stream = call.client.sendMessageStream(request, { signal });
  for await (const event of stream) {
    sink.count();
    if (readEvent(event, sink)) break;
  }
  if (!sink.progress.mapping.settled) {
    // The stream ended early; one GetTask says whether the task settled after all.
    if (sink.progress.taskId === undefined)
      throw new Stop(A2aErrorCode.DISCONNECTED, "the stream ended before any task");
    const task = await call.client.getTask({ tenant: "", id: sink.progress.taskId }, { signal });
    readTask(task, sink);
    if (!sink.progress.mapping.settled)
      throw new Stop(
        A2aErrorCode.DISCONNECTED,
        `the stream ended while the task was ${sink.progress.mapping.remote}`,
      );
  }
}

/** Reads one stream event; true once the task has settled. */
function readEvent(event: StreamResponse, sink: Sink): boolean {
  const payload = event.payload;
  switch (payload?.$case) {
    case "task":
      return readTask(payload.value, sink);
    case "message":
      // A direct answer without a task: its parts are the artifact.
      readMessageAnswer(payload.value, sink);
      return true;
    case "statusUpdate": {
      const status = payload.value.status;
      sink.observe(status?.state, { id: payload.value.taskId, ...statusText(status?.message) });
      keepUsage(sink, payload.value.metadata);
      return sink.progress.mapping.settled;
    }
    case "artifactUpdate":
      if (payload.value.artifact && !sink.artifact.add(payload.value.artifact, payload.value.append))
        throw new Stop(A2aErrorCode.ARTIFACT_TOO_LARGE, `the artifact passed ${sink.artifact.bytes} bytes`);
      return false;
    default:
      throw new Stop(A2aErrorCode.PROTOCOL, "the remote sent an event of no known kind");
  }
}

function keepUsage(sink: Sink, metadata: Record<string, unknown> | undefined): void {
  const usage = usageOf(metadata);
  if (usage) sink.progress.usage = usage;
}

function readTask(task: Task, sink: Sink): boolean {
  sink.observe(task.status?.state, { id: task.id, ...statusText(task.status?.message) });
  keepUsage(sink, task.metadata);
  if (task.artifacts.length > 0 && !sink.artifact.addAll(task.artifacts))
    throw new Stop(A2aErrorCode.ARTIFACT_TOO_LARGE, `the artifact passed the byte cap`);
  return sink.progress.mapping.settled;
}

function readMessageAnswer(answer: Message, sink: Sink): void {
  const id = answer.taskId || answer.messageId;
  const added = sink.artifact.add(
    {
      artifactId: answer.messageId,
      name: "message",
      description: "",
      parts: answer.parts,
      metadata: undefined,
      extensions: [],
    },
    false,
  );
  if (!added) throw new Stop(A2aErrorCode.ARTIFACT_TOO_LARGE, "the answer passed the byte cap");
  sink.observe(TaskState.TASK_STATE_COMPLETED, { id });
}

async function pollTask(call: RemoteCall, message: Message, signal: AbortSignal, sink: Sink): Promise<void> {
  const configuration = {
    acceptedOutputModes: [],
    taskPushNotificationConfig: undefined,
    returnImmediately: true,
  };
  const first = await call.client.sendMessage(
    { tenant: "", message, configuration, metadata: undefined },
    { signal },
  );
  sink.count();
  if ("role" in first && "parts" in first && !("status" in first)) {
    readMessageAnswer(first as Message, sink);
    return;
  }
  let task = first as Task;
  while (!readTask(task, sink)) {
    await sleep(call.bounds.pollIntervalMs, signal);
    sink.count();
    task = await call.client.getTask({ tenant: "", id: task.id }, { signal });
  }
}

function settle(
  call: RemoteCall,
  progress: Progress,
  artifact: ArtifactCollector,
  ctx: ToolContext,
): ToolResult | Promise<ToolResult> {
  const collected = artifact.result();
  const facts: JsonObject = {
    remote: call.remote,
    task_id: progress.taskId ?? null,
    state: progress.mapping.local,
    remote_state: progress.mapping.remote,
    events: progress.events,
    ...(progress.statusText !== undefined ? { remote_message: labelled(progress.statusText) } : {}),
    ...(progress.usage
      ? { remote_usage: { reported_by_remote: true, enforced: false, ...progress.usage } }
      : {}),
    ...(artifact.droppedCount > 0 ? { dropped_artifacts: artifact.droppedCount } : {}),
  };
  if (progress.mapping.remote === "completed") {
    const retained = collected
      ? retainArtifact(ctx, { ...collected, remote: call.remote, taskId: progress.taskId ?? "" })
      : undefined;
    return ok({
      ...facts,
      artifact: retained ? artifactReceipt(retained) : null,
      ...(retained ? { handoff: `child_handoff with child ${retained.id} promotes the artifact` } : {}),
    });
  }
  const code = progress.mapping.code ?? A2aErrorCode.REMOTE_FAILED;
  const failure = () =>
    fail(code, `remote ${call.remote} task ended ${progress.mapping.remote}`, {
      ...facts,
      remote_outcome: isPaused(progress.mapping) ? "unknown" : progress.mapping.remote,
    });
  if (!isPaused(progress.mapping) || progress.taskId === undefined) return failure();
  // A paused task stays open remotely; this call no longer owns it, so it asks for cancellation.
  return sendCancel(call, progress.taskId).then((cancel) => {
    const result = failure();
    return result.ok
      ? result
      : fail(result.error.code, result.error.message, { ...result.error.details, cancel });
  });
}

async function endEarly(
  call: RemoteCall,
  progress: Progress,
  error: unknown,
  context: { ctx: ToolContext; timeout: AbortSignal },
): Promise<ToolResult> {
  const { code, message } = classify(error, context, call);
  const cancel =
    progress.taskId !== undefined ? await sendCancel(call, progress.taskId) : "not-sent: no task ID yet";
  return fail(code, `remote ${call.remote}: ${message}`, {
    remote: call.remote,
    task_id: progress.taskId ?? null,
    state: "cancelled",
    remote_state: progress.mapping.remote,
    events: progress.events,
    cancel,
    // Pablo closed its ownership; nothing says the remote stopped or rolled back its work.
    remote_outcome: "unknown",
  });
}

function classify(
  error: unknown,
  context: { ctx: ToolContext; timeout: AbortSignal },
  call: RemoteCall,
): { code: string; message: string } {
  if (error instanceof Stop) return { code: error.code, message: error.message };
  if (context.ctx.signal.aborted)
    return { code: ErrorCode.TOOL_CANCELLED, message: "the call was cancelled" };
  if (context.timeout.aborted)
    return {
      code: ErrorCode.TOOL_TIMEOUT,
      message: `no settled task within ${call.bounds.operationTimeoutMs} ms`,
    };
  const found = findCause(error);
  if (found instanceof RedirectRefused)
    return { code: A2aErrorCode.REDIRECT_REFUSED, message: found.message };
  if (found instanceof MessageTooLarge) return { code: A2aErrorCode.EVENT_LIMIT, message: found.message };
  const text = error instanceof Error ? error.message : String(error);
  if (/fetch failed|ECONNRE|socket|terminated|other side closed/i.test(text))
    return { code: A2aErrorCode.DISCONNECTED, message: `the connection failed: ${boundedText(text, 300)}` };
  return {
    code: A2aErrorCode.PROTOCOL,
    message: `the remote's answer was not A2A 1.0: ${boundedText(text, 300)}`,
  };
}

function findCause(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof RedirectRefused || current instanceof MessageTooLarge) return current;
    current = current.cause;
  }
  return error;
}

/** One CancelTask within `cancelTimeoutMs`; its outcome is reported, never retried. */
async function sendCancel(call: RemoteCall, taskId: string): Promise<string> {
  try {
    const task = await call.client.cancelTask(
      { tenant: "", id: taskId, metadata: undefined },
      { signal: AbortSignal.timeout(call.bounds.cancelTimeoutMs) },
    );
    return `sent: the remote reports ${mapState(task.status?.state).remote}`;
  } catch (error) {
    return `sent: no acknowledgement (${boundedText(error instanceof Error ? error.message : String(error), 200)})`;
  }
}

function statusText(message: Message | undefined): { statusText?: string } {
  if (!message) return {};
  const text = message.parts
    .flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []))
    .join("\n");
  return text === "" ? {} : { statusText: text };
}

/** The remote's own message, bounded and labelled as its claim. */
function labelled(text: string): string {
  return `[remote agent says, unverified] ${boundedText(text, 2000)}`;
}

/** Usage a remote reports in its metadata (`usage`), kept as bounded numbers only. */
function usageOf(metadata: Record<string, unknown> | undefined): JsonObject | undefined {
  const usage = metadata?.["usage"];
  if (usage === null || typeof usage !== "object" || Array.isArray(usage)) return undefined;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(usage).slice(0, 16))
    if (typeof value === "number" && Number.isFinite(value)) out[boundedText(key, 64)] = value;
  return out;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
