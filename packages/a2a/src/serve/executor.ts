import { type Artifact, type Message, Role, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";

/** One incoming task, as the host's runner sees it. */
export interface ServedTask {
  readonly taskId: string;
  /** The text parts of the caller's message, joined. */
  readonly text: string;
  /** Aborts on CancelTask and when the server closes. */
  readonly signal: AbortSignal;
  /** A short, content-free progress note streamed as a working status. */
  status(note: string): void;
}

/** How a served task ended: one text artifact on success. */
export interface ServedAnswer {
  readonly ok: boolean;
  readonly text: string;
  readonly reason?: string;
  readonly mediaType?: string;
}

/**
 * The SDK executor behind `serveA2a`: publishes the task first (as the SDK requires), then
 * `working`, runs the host's runner, then exactly one artifact and one final state. A cancel
 * aborts the runner and ends the task as canceled, whatever the runner returns afterwards.
 */
export class PabloExecutor implements AgentExecutor {
  readonly #run: (task: ServedTask) => Promise<ServedAnswer>;
  readonly #running = new Map<string, { controller: AbortController; ended: boolean; contextId: string }>();

  constructor(run: (task: ServedTask) => Promise<ServedAnswer>) {
    this.#run = run;
  }

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = context;
    const entry = { controller: new AbortController(), ended: false, contextId };
    this.#running.set(taskId, entry);
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    const status = (state: TaskState, text?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: text === undefined ? undefined : agentMessage(taskId, contextId, text),
            timestamp: now(),
          },
          metadata: undefined,
        }),
      );
    status(TaskState.TASK_STATE_WORKING);
    const text = context.userMessage.parts
      .flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []))
      .join("\n");
    let answer: ServedAnswer;
    try {
      answer = await this.#run({
        taskId,
        text,
        signal: entry.controller.signal,
        status: (note) => {
          if (!entry.ended) status(TaskState.TASK_STATE_WORKING, note);
        },
      });
    } catch (error) {
      answer = { ok: false, text: "", reason: error instanceof Error ? error.message : String(error) };
    }
    this.#running.delete(taskId);
    if (entry.ended) return;
    entry.ended = true;
    if (entry.controller.signal.aborted) {
      status(TaskState.TASK_STATE_CANCELED, "cancelled");
    } else if (answer.ok) {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: textArtifact(answer),
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      status(TaskState.TASK_STATE_COMPLETED);
    } else {
      status(TaskState.TASK_STATE_FAILED, answer.reason ?? "the task failed");
    }
    bus.finished();
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const entry = this.#running.get(taskId);
    if (!entry || entry.ended) return;
    entry.ended = true;
    entry.controller.abort(new Error("cancelled by the caller"));
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: entry.contextId,
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
        metadata: undefined,
      }),
    );
    bus.finished();
  };

  /** Aborts every running task (the server is closing). */
  cancelAll(): void {
    for (const entry of this.#running.values()) entry.controller.abort(new Error("the server is closing"));
  }
}

function textArtifact(answer: ServedAnswer): Artifact {
  return {
    artifactId: "answer",
    name: "answer",
    description: "",
    parts: [
      {
        content: { $case: "text", value: answer.text },
        metadata: undefined,
        filename: "",
        mediaType: answer.mediaType ?? "text/plain",
      },
    ],
    metadata: undefined,
    extensions: [],
  };
}

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: `${taskId}-${Date.now()}`,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [
      { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function now(): string {
  return new Date().toISOString();
}
