import type { Kernel, PermissionBroker, Session } from "@pablo/kernel";
import type { ToolSearch } from "@pablo/tool-search";
import type { ChildConfig, ChildOptions } from "../children/child-config.js";
import { resolveChildConfig } from "../children/child-config.js";
import type { NestedAgent } from "../children/nested.js";
import { type ResolvedSubagent, resolveSubagents, type SubagentDefinition } from "../children/subagents.js";
import type { AgentToolProvider } from "../control/agent-provider.js";
import type { QuestionPort } from "../control/ports.js";
import type { AgentMessage, Model } from "../model/types.js";
import { compactMessages } from "./compact.js";
import type { AgentEventListener, AgentRunResult, RunStatus } from "./events.js";
import { LoopRuntime } from "./loop-runtime.js";
import { RunReport } from "./run-report.js";
import { runTurns } from "./run-turns.js";

export interface AgentOptions {
  readonly session: Session;
  readonly model: Model;
  /** Opens delegate and child sessions (sharing this session's budget); without it, no Task or children. */
  readonly kernel?: Kernel;
  /** The agent provider registered in the session's catalog: control tools, ToolSearch, subagents, children. */
  readonly control?: AgentToolProvider;
  /** ToolSearch to use instead of the provider's. */
  readonly toolSearch?: ToolSearch;
  /** Task delegates, instead of the provider's. Task is offered only when there is at least one. */
  readonly subagents?: readonly SubagentDefinition[];
  /** Child options, instead of the provider's. */
  readonly children?: ChildOptions;
  /** Asks the user asktool's questions; without it every answer is skipped. */
  readonly questions?: QuestionPort;
  /** Where plan and goal approvals are asked (default: the kernel's broker); without one they fail closed. */
  readonly broker?: PermissionBroker;
  /** Extra system instructions. */
  readonly instructions?: string;
  readonly onEvent?: AgentEventListener;
  /** This loop's name in events and replay transcripts (default `root`). */
  readonly agent?: string;
}

/**
 * An agent: one conversation over one session. Each `prompt` is a new user prompt (per-prompt
 * state such as loaded deferred tools starts over) that runs model turns until the model answers
 * without a tool call, a budget or limit ends it, or the signal cancels it.
 */
export class Agent {
  readonly messages: AgentMessage[] = [];
  readonly #options: AgentOptions;
  readonly #subagents: readonly ResolvedSubagent[];
  readonly #children: ChildConfig | undefined;
  readonly #runtime: LoopRuntime;
  readonly #emit: AgentEventListener;
  #running = false;

  constructor(options: AgentOptions) {
    this.#options = options;
    const listener = options.onEvent;
    this.#emit = (event) => {
      try {
        listener?.(event);
      } catch {
        // Contract: listeners do not throw; one that does must not break the loop.
      }
    };
    this.#subagents = options.subagents
      ? resolveSubagents(options.subagents).items
      : (options.control?.subagents ?? []);
    this.#children = options.children ? resolveChildConfig(options.children) : options.control?.children;
    const toolSearch = this.#toolSearch();
    if (toolSearch) toolSearch.attach(options.session);
    this.#runtime = new LoopRuntime({
      session: options.session,
      agent: options.agent ?? "root",
      emit: this.#emit,
      kernel: options.kernel,
      broker: options.broker ?? options.kernel?.options.broker,
      questions: options.questions,
      subagents: this.#subagents,
      children: this.#children,
      spawn: (session, agent, instructions) => this.#nested(session, agent, instructions),
    });
  }

  get session(): Session {
    return this.#options.session;
  }

  /** Runs one user prompt to its end. Never throws for anything a model or tool did. */
  async prompt(text: string, options: { readonly signal?: AbortSignal } = {}): Promise<AgentRunResult> {
    if (this.#running) throw new Error("an agent runs one prompt at a time");
    this.#running = true;
    const { session } = this.#options;
    const signal = options.signal ?? new AbortController().signal;
    const report = new RunReport();
    const runtime = this.#runtime;
    runtime.report = report;
    runtime.rejectedSubmission = false;
    const agent = runtime.agent;
    session.beginPrompt();
    this.messages.push({ role: "user", content: text });
    this.#emit({ type: "prompt.started", agent, mode: session.mode });
    const detach = this.#options.control?.hub.attach(runtime);
    const cancel = () => {
      session.cancelTurn("the run was cancelled");
      void runtime.stopChildren("the run was cancelled");
    };
    if (signal.aborted) cancel();
    else signal.addEventListener("abort", cancel, { once: true });
    let end: { status: RunStatus; reason?: string; text: string; turns: number };
    try {
      end = await runTurns({
        session,
        model: this.#options.model,
        messages: this.messages,
        runtime,
        report,
        emit: this.#emit,
        signal,
        agent,
        instructions: [this.#options.instructions, this.#options.control?.instructions]
          .filter((s) => s)
          .join("\n\n"),
        offer: {
          toolSearch: this.#toolSearch(),
          controls: detach !== undefined,
          task: this.#subagents.length > 0 && this.#options.kernel !== undefined,
          children: this.#children !== undefined && this.#options.kernel !== undefined,
        },
        compact: (messages) => {
          const compacted = compactMessages(messages);
          messages.splice(0, messages.length, ...compacted);
        },
      });
    } finally {
      signal.removeEventListener("abort", cancel);
      await runtime.stopChildren("the root prompt ended");
      detach?.();
      this.#running = false;
    }
    this.#emit({
      type: "prompt.finished",
      agent,
      status: end.status,
      ...(end.reason ? { reason: end.reason } : {}),
    });
    return {
      status: end.status,
      ...(end.reason ? { reason: end.reason } : {}),
      text: end.text,
      turns: end.turns,
      calls: report.calls,
      denials: report.denials,
      changes: report.changes,
      artifacts: report.artifacts,
      committed: report.committed,
      budgets: report.budgets(session),
    };
  }

  #toolSearch(): ToolSearch | undefined {
    return this.#options.toolSearch ?? this.#options.control?.toolSearch;
  }

  /** A delegate's or child's loop: same model and listener, its own session, no control tools. */
  #nested(session: Session, agent: string, instructions: string | undefined): NestedAgent {
    return new Agent({
      session,
      model: this.#options.model,
      agent,
      ...(instructions ? { instructions } : {}),
      ...(this.#options.onEvent ? { onEvent: this.#options.onEvent } : {}),
    });
  }
}

/** Runs one prompt on a fresh agent. */
export function runAgent(
  options: AgentOptions & { readonly prompt: string; readonly signal?: AbortSignal },
): Promise<AgentRunResult> {
  const { prompt, signal, ...rest } = options;
  return new Agent(rest).prompt(prompt, signal ? { signal } : {});
}
