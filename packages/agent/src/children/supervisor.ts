import {
  createKernel,
  ErrorCode,
  fail,
  type Kernel,
  ok,
  type Session,
  type ToolContext,
  type ToolResult,
} from "@pablo/kernel";
import { AgentErrorCode } from "../control/names.js";
import type { AgentEventListener, AgentRunResult, ChildState } from "../loop/events.js";
import type { ChildConfig } from "./child-config.js";
import { clipText, type SpawnAgent } from "./nested.js";
import { toolsLayer } from "./subagents.js";

const MAX_ANSWER_CHARS = 32 * 1024;
const MAX_ARTIFACT_CHARS = 256 * 1024;

interface ChildRecord {
  readonly id: string;
  readonly task: string;
  state: ChildState;
  readonly controller: AbortController;
  session?: Session;
  result?: AgentRunResult;
  reason?: string;
  startedAt?: number;
  finishedAt?: number;
  handedOff: boolean;
  readonly done: Promise<void>;
  settle: () => void;
}

export interface SupervisorOptions {
  readonly kernel: Kernel;
  readonly root: Session;
  readonly config: ChildConfig;
  /** The root loop's spawn; a configured {@link ChildConfig.host} runs children instead. */
  readonly spawn: SpawnAgent;
  readonly emit: AgentEventListener;
  /** Called with each finished child's result, so the root's summary includes its calls. */
  readonly onFinished?: (child: string, result: AgentRunResult) => void;
}

/**
 * Supervised local children (seed 002): depth one, at most `maxConcurrent` running, the rest
 * queued FIFO and started only while the root's deadline allows. Each child has its own session
 * over the root's catalog, narrowed by the children's tools layer and the configured layers, and
 * shares the root's budget. Its answer stays here until one validated handoff promotes it.
 */
export class ChildSupervisor {
  readonly #options: SupervisorOptions;
  readonly #children = new Map<string, ChildRecord>();
  readonly #queue: ChildRecord[] = [];
  #running = 0;
  #sequence = 0;
  #hostKernel: Kernel | undefined;

  constructor(options: SupervisorOptions) {
    this.#options = options;
  }

  /** Running plus queued children. */
  active(): number {
    return this.#running + this.#queue.length;
  }

  start(task: string): ToolResult {
    const id = `c${++this.#sequence}`;
    let settle: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const record: ChildRecord = {
      id,
      task,
      state: "queued",
      controller: new AbortController(),
      handedOff: false,
      done,
      settle,
    };
    this.#children.set(id, record);
    this.#queue.push(record);
    this.#pump();
    const position = this.#queue.indexOf(record);
    if (record.state === "queued")
      this.#options.emit({ type: "child.state", child: id, state: "queued", position: position + 1 });
    return ok({
      child: id,
      state: record.state,
      ...(record.state === "queued" ? { queue_position: position + 1 } : {}),
      running: this.#running,
      queued: this.#queue.length,
    });
  }

  async wait(id: string, timeoutMs: number, signal: AbortSignal): Promise<ToolResult> {
    const record = this.#children.get(id);
    if (!record) return fail(ErrorCode.NOT_FOUND, `no child ${id}`);
    if (timeoutMs > 0 && !isFinal(record.state)) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: () => void = () => undefined;
      await Promise.race([
        record.done,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
          onAbort = () => resolve();
          signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
    return ok(this.#receipt(record));
  }

  async handoff(id: string, artifact: string | undefined, ctx: ToolContext): Promise<ToolResult> {
    const record = this.#children.get(id);
    if (!record) return fail(ErrorCode.NOT_FOUND, `no child ${id}`);
    if (!isFinal(record.state))
      return fail(AgentErrorCode.AGENT_STATE, `child ${id} is ${record.state}; wait for it first`);
    if (record.state !== "completed" || !record.result || !record.session) {
      return fail(
        AgentErrorCode.AGENT_STATE,
        `child ${id} ${record.state}: ${record.reason ?? "no result"}; there is nothing to hand off`,
      );
    }
    if (record.handedOff) return fail(ErrorCode.ALREADY_EXISTS, `child ${id} was already handed off`);
    const base = {
      child: id,
      answer: clipText(record.result.text, MAX_ANSWER_CHARS),
      accounting: accounting(record),
    };
    if (artifact === undefined) {
      record.handedOff = true;
      return ok(base);
    }
    const seen = [...record.result.calls].reverse().find((c) => c.file?.path === artifact)?.file;
    if (!seen)
      return fail(ErrorCode.NOT_FOUND, `child ${id} did not read or write ${artifact}`, {
        child: id,
        artifact,
      });
    // Re-read under the child's own (narrowed) authority, just before the content is used.
    const outcome = await record.session.call({
      tool: this.#options.config.artifactReader,
      args: { path: seen.path },
      signal: ctx.signal,
    });
    if (!outcome.result.ok) {
      return fail(
        outcome.result.error.code,
        `re-checking ${artifact} under the child's authority failed: ${outcome.result.error.message}`,
        {
          child: id,
          artifact,
        },
      );
    }
    const data = outcome.result.data as Record<string, unknown>;
    if (data["revision"] !== seen.revision) {
      return fail(
        ErrorCode.REVISION_CONFLICT,
        `${artifact} changed since child ${id} read it; the handoff is refused`,
        {
          child: id,
          artifact,
          expected: seen.revision,
          actual: typeof data["revision"] === "string" ? data["revision"] : null,
        },
      );
    }
    record.handedOff = true;
    return ok({
      ...base,
      artifact: {
        path: seen.path,
        revision: seen.revision,
        content: typeof data["content"] === "string" ? clipText(data["content"], MAX_ARTIFACT_CHARS) : null,
      },
    });
  }

  /** Stops every running child and drops the queue; finished children keep their results. */
  cancelAll(reason: string): void {
    for (const record of this.#queue.splice(0)) this.#finish(record, "cancelled", reason);
    for (const record of this.#children.values()) {
      if (record.state === "running") record.controller.abort(new Error(reason));
    }
  }

  /** Resolves once no child is running. */
  async settled(): Promise<void> {
    await Promise.all([...this.#children.values()].map((r) => r.done));
  }

  #pump(): void {
    while (this.#running < this.#options.config.maxConcurrent && this.#queue.length > 0) {
      const record = this.#queue.shift() as ChildRecord;
      if (this.#options.root.budget.remainingMs() <= 0) {
        this.#finish(record, "failed", "the run deadline passed before the child could start");
        continue;
      }
      void this.#run(record);
    }
  }

  async #run(record: ChildRecord): Promise<void> {
    const { root, config, emit } = this.#options;
    const spawn = config.host?.spawn ?? this.#options.spawn;
    this.#running++;
    record.state = "running";
    record.startedAt = Date.now();
    emit({ type: "child.state", child: record.id, state: "running" });
    try {
      const session = this.#kernel().openSession({
        catalog: root.catalog,
        parent: root,
        layers: [toolsLayer("children", "supervised children", config.tools), ...config.layers],
        requester: `child:${record.id}`,
      });
      record.session = session;
      const result = await spawn(session, `child:${record.id}`, config.instructions).prompt(record.task, {
        signal: record.controller.signal,
      });
      record.result = result;
      this.#options.onFinished?.(record.id, result);
      if (result.status === "completed") this.#finish(record, "completed");
      else
        this.#finish(
          record,
          result.status === "cancelled" ? "cancelled" : "failed",
          result.reason ?? result.status,
        );
    } catch (error) {
      this.#finish(record, "failed", error instanceof Error ? error.message : String(error));
    } finally {
      this.#running--;
      this.#pump();
    }
  }

  /**
   * The kernel a child's session opens on: the root's, or, when the host routes the child's
   * permission requests, the same options with the host's broker. Budget, grants and layers come
   * from the root session (the parent), so nothing else about the child changes.
   */
  #kernel(): Kernel {
    const { kernel, config } = this.#options;
    const broker = config.host?.broker;
    if (!broker || !kernel.options.broker) return kernel;
    this.#hostKernel ??= createKernel({ ...kernel.options, broker });
    return this.#hostKernel;
  }

  #finish(record: ChildRecord, state: ChildState, reason?: string): void {
    record.state = state;
    record.finishedAt = Date.now();
    if (reason !== undefined) record.reason = reason;
    this.#options.emit({ type: "child.state", child: record.id, state });
    record.settle();
  }

  #receipt(record: ChildRecord) {
    const position = this.#queue.indexOf(record);
    return {
      child: record.id,
      state: record.state,
      ...(position >= 0 ? { queue_position: position + 1 } : {}),
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
      accounting: accounting(record),
      files: [...new Set((record.result?.calls ?? []).flatMap((c) => (c.file ? [c.file.path] : [])))],
      handed_off: record.handedOff,
    };
  }
}

function isFinal(state: ChildState): boolean {
  return state === "completed" || state === "failed" || state === "cancelled";
}

function accounting(record: ChildRecord) {
  return {
    model_calls: record.result?.turns ?? 0,
    tool_calls: record.result?.calls.length ?? 0,
    denials: record.result?.denials.length ?? 0,
    duration_ms: record.startedAt !== undefined ? (record.finishedAt ?? Date.now()) - record.startedAt : 0,
  };
}
