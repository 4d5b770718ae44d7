import {
  ErrorCode,
  fail,
  type Kernel,
  type OperatingMode,
  ok,
  PERMISSION_TIMEOUT_MS,
  type PermissionBroker,
  type Session,
  type ToolContext,
  type ToolResult,
} from "@pablo/kernel";
import type { ChildConfig } from "../children/child-config.js";
import { clipText, type SpawnAgent } from "../children/nested.js";
import { promoteRetained, RETAINED_ID_PATTERN } from "../children/retained.js";
import { openDelegateSession, type ResolvedSubagent } from "../children/subagents.js";
import { ChildSupervisor } from "../children/supervisor.js";
import { AgentErrorCode, ControlToolName } from "../control/names.js";
import type {
  AgentRuntime,
  ApprovalAnswer,
  ApprovalRequest,
  Question,
  QuestionPort,
} from "../control/ports.js";
import type { AgentEventListener, AgentRunResult, SubmittedArtifact } from "./events.js";
import type { RunReport } from "./run-report.js";

const MAX_DELEGATE_ANSWER_CHARS = 32 * 1024;

export interface RuntimeOptions {
  readonly session: Session;
  readonly agent: string;
  readonly emit: AgentEventListener;
  readonly kernel: Kernel | undefined;
  readonly broker: PermissionBroker | undefined;
  readonly questions: QuestionPort | undefined;
  readonly subagents: readonly ResolvedSubagent[];
  readonly children: ChildConfig | undefined;
  readonly spawn: SpawnAgent;
}

/** The loop's side of the control tools for one agent: batches, modes, approvals, delegates, children. */
export class LoopRuntime implements AgentRuntime {
  readonly session: Session;
  readonly agent: string;
  report: RunReport | undefined;
  compactionRequested = false;
  /** The latest submission was not approved, and none has been approved since. */
  rejectedSubmission = false;
  readonly #options: RuntimeOptions;
  readonly #batch = new Map<string, number>();
  #delegates = 0;
  #supervisor: ChildSupervisor | undefined;

  constructor(options: RuntimeOptions) {
    this.#options = options;
    this.session = options.session;
    this.agent = options.agent;
  }

  beginBatch(callIds: readonly string[]): void {
    this.#batch.clear();
    for (const id of callIds) this.#batch.set(id, callIds.length);
  }

  batchSize(callId: string): number {
    return this.#batch.get(callId) ?? 0;
  }

  requestCompaction(): void {
    this.compactionRequested = true;
  }

  enterMode(to: Exclude<OperatingMode, "agent">, _ctx: ToolContext): ToolResult {
    const from = this.session.mode;
    if (from !== "agent")
      return fail(AgentErrorCode.AGENT_STATE, `the session is in ${from} mode, not Agent`);
    if (this.#delegates > 0 || (this.#supervisor?.active() ?? 0) > 0) {
      return fail(
        AgentErrorCode.AGENT_STATE,
        "delegates or children are still running; the mode cannot change now",
      );
    }
    this.session.setMode(to);
    this.#options.emit({ type: "mode.changed", agent: this.agent, from, to });
    return ok({
      mode: to,
      note: `Now in ${to === "plan" ? "Plan" : "Goal"} mode. File writes are unavailable until approval.`,
    });
  }

  async approve(request: ApprovalRequest, ctx: ToolContext): Promise<ApprovalAnswer> {
    const broker = this.#options.broker;
    if (!broker) return "no-channel";
    const timeoutMs = this.session.permission.timeoutMs ?? PERMISSION_TIMEOUT_MS;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tool = request.kind === "plan" ? ControlToolName.SUBMIT_PLAN : ControlToolName.SUBMIT_GOAL;
    try {
      const answer = await Promise.race([
        broker
          .request(
            {
              sessionId: this.session.id,
              callId: ctx.callId,
              tool,
              providerName: request.kind === "plan" ? "SubmitPlan" : "SubmitGoal",
              risk: "low",
              category: request.kind === "plan" ? "plan-submit" : "goal-submit",
              argsPreview: `${request.path} (${request.bytes} bytes)\n${request.preview}`,
              reason: `approve the ${request.kind} to return to Agent mode and carry it out`,
              requester: ctx.requester,
              deadline: Date.now() + timeoutMs,
            },
            controller.signal,
          )
          .then(
            (a): ApprovalAnswer => (a === "allow-once" || a === "allow-session" ? "approved" : "rejected"),
            (): ApprovalAnswer => "rejected",
          ),
        new Promise<ApprovalAnswer>((resolve) => {
          timer = setTimeout(() => resolve("timeout"), timeoutMs);
        }),
        new Promise<ApprovalAnswer>((resolve) => {
          if (ctx.signal.aborted) resolve("cancelled");
          ctx.signal.addEventListener("abort", () => resolve("cancelled"), { once: true });
        }),
      ]);
      return answer;
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
      controller.abort();
    }
  }

  submitted(artifact: SubmittedArtifact): void {
    this.report?.artifacts.push(artifact);
    this.rejectedSubmission = !artifact.approved;
    this.#options.emit({ type: "artifact.saved", agent: this.agent, ...artifact });
    if (artifact.approved && this.session.mode !== "agent") {
      const from = this.session.mode;
      this.session.setMode("agent");
      this.#options.emit({ type: "mode.changed", agent: this.agent, from, to: "agent" });
    }
  }

  async ask(questions: readonly Question[], ctx: ToolContext): Promise<readonly (string | undefined)[]> {
    const port = this.#options.questions;
    const skipped = questions.map(() => undefined);
    let answers: readonly (string | undefined)[] = skipped;
    if (port && !ctx.signal.aborted) {
      let onAbort: () => void = () => undefined;
      // Listen before asking: a port may stop the turn from inside `ask`.
      const stopped = new Promise<readonly undefined[]>((resolve) => {
        onAbort = () => resolve(skipped);
        ctx.signal.addEventListener("abort", onAbort, { once: true });
      });
      answers = await Promise.race([
        port.ask(questions, { signal: ctx.signal, requester: ctx.requester }).catch(() => skipped),
        stopped,
      ]);
      ctx.signal.removeEventListener("abort", onAbort);
    }
    const answered = answers.filter((a) => a !== undefined && a !== "").length;
    this.#options.emit({ type: "question.asked", agent: this.agent, questions: questions.length, answered });
    return answers;
  }

  async runTask(subagent: string, prompt: string, ctx: ToolContext): Promise<ToolResult> {
    const definition = this.#options.subagents.find((s) => s.name === subagent);
    if (!definition) return fail(ErrorCode.NOT_FOUND, `no subagent named ${JSON.stringify(subagent)}`);
    const kernel = this.#options.kernel;
    if (!kernel)
      return fail(
        AgentErrorCode.AGENT_STATE,
        "this host runs no delegates (the loop has no kernel to open their sessions)",
      );
    const session = openDelegateSession(kernel, this.session, definition);
    this.#delegates++;
    let result: AgentRunResult;
    try {
      result = await this.#options
        .spawn(session, `task:${subagent}`, definition.instructions)
        .prompt(prompt, { signal: ctx.signal });
    } finally {
      this.#delegates--;
    }
    this.#absorb(result);
    const facts = {
      subagent,
      status: result.status,
      answer: clipText(result.text, MAX_DELEGATE_ANSWER_CHARS),
      tool_calls: result.calls.length,
      denials: result.denials.map((d) => ({ tool: d.tool, code: d.code, rule: `${d.layer}/${d.rule}` })),
      changes: result.changes.map((c) => c.path),
    };
    if (result.status === "completed") return ok(facts);
    return fail(
      ErrorCode.TOOL_FAILED,
      `delegate ${subagent} stopped (${result.status}): ${result.reason ?? ""}`.trim(),
      facts,
    );
  }

  startChild(task: string, _ctx: ToolContext): ToolResult {
    const supervisor = this.#children();
    return supervisor
      ? supervisor.start(task)
      : fail(AgentErrorCode.AGENT_STATE, "children are not enabled for this run");
  }

  async waitChild(child: string, timeoutMs: number, ctx: ToolContext): Promise<ToolResult> {
    const supervisor = this.#children();
    return supervisor
      ? supervisor.wait(child, timeoutMs, ctx.signal)
      : fail(AgentErrorCode.AGENT_STATE, "children are not enabled for this run");
  }

  async handoff(child: string, artifact: string | undefined, ctx: ToolContext): Promise<ToolResult> {
    // IDs that are not a child's belong to a tool that retained its result (a2a: `r1`).
    if (RETAINED_ID_PATTERN.test(child)) return promoteRetained(ctx, child);
    const supervisor = this.#children();
    return supervisor
      ? supervisor.handoff(child, artifact, ctx)
      : fail(AgentErrorCode.AGENT_STATE, "children are not enabled for this run");
  }

  /** Stops running children and queued ones; waits until they have settled. */
  async stopChildren(reason: string): Promise<void> {
    if (!this.#supervisor) return;
    this.#supervisor.cancelAll(reason);
    await this.#supervisor.settled();
  }

  #children(): ChildSupervisor | undefined {
    const { kernel, children } = this.#options;
    if (!kernel || !children) return undefined;
    this.#supervisor ??= new ChildSupervisor({
      kernel,
      root: this.session,
      config: children,
      spawn: this.#options.spawn,
      emit: this.#options.emit,
      onFinished: (_child, result) => this.#absorb(result),
    });
    return this.#supervisor;
  }

  /** A delegate's or child's calls join the root's summary. */
  #absorb(result: AgentRunResult): void {
    const report = this.report;
    if (!report) return;
    report.calls.push(...result.calls);
    report.denials.push(...result.denials);
    report.changes.push(...result.changes);
    report.committed.push(...result.committed);
    report.outputBytes += result.budgets.outputBytes;
  }
}
