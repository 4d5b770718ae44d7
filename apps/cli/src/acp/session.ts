import {
  type AgentContext,
  type ContentBlock,
  type NewSessionResponse,
  type PromptResponse,
  RequestError,
  type SessionConfigOption,
  type SessionUpdate,
  type StopReason,
} from "@agentclientprotocol/sdk";
import {
  Agent,
  type AgentDeploymentOptions,
  type AgentEvent,
  type AgentRunResult,
  findAgentProvider,
  type Model,
} from "@pablo/agent";
import type { PermissionMode, PermissionRequest, Session } from "@pablo/kernel";
import { taskInstructions } from "../commands/run.js";
import type { TaskEnvironment } from "../distribution.js";
import { sessionReviewStore } from "../storage.js";
import type { RefusedServer } from "./catalog.js";
import type { AcpChildHost, ChildHostRoot } from "./children.js";
import type { ElicitationChannel } from "./elicitation.js";
import {
  allowedPermissionModes,
  isOperatingMode,
  modeState,
  PERMISSION_OPTION_ID,
  permissionOption,
} from "./modes.js";
import type { PermissionChannel } from "./permission.js";
import { observeToolCalls, UpdateMapper } from "./updates.js";

/** The Pablo extension notification a child session sends each of its agent events as. */
export const AGENT_EVENT_METHOD = "_pablo/agent_event";

export interface AcpSessionOptions {
  readonly task: TaskEnvironment;
  /** The kernel session the agent runs on (the task's, or one over a catalog with the client's tools). */
  readonly session: Session;
  readonly client: AgentContext;
  readonly model: Model;
  /** The deployment's `[options.permission] loosest`: the session's permission mode never goes below it. */
  readonly loosest: PermissionMode | undefined;
  /** Client MCP servers and tools left out, reported in `session/new`'s `_meta.pablo`. */
  readonly refused?: readonly RefusedServer[];
  /** Closes what the session opened beyond the task (the client's MCP servers). */
  readonly close?: () => Promise<void>;
  /**
   * Makes the host that runs this session's supervised children (when the deployment enables
   * them) as ACP sessions of their own; it is handed the root's listener, update hook and broker.
   */
  readonly children?: (root: ChildHostRoot) => AcpChildHost;
  /**
   * This session is a supervised child, driven in-process: its loop is the child's (its own name,
   * the children's instructions, no control tools, so depth stays one), its agent events travel
   * as `_pablo/agent_event` notifications, its prompt response carries the run's result, and
   * closing it leaves the root's task open.
   */
  readonly child?: { readonly agent: string; readonly instructions: string | undefined };
}

/**
 * One ACP session: one kernel session, one agent conversation, the editor's connection. A prompt
 * runs to one stop reason; `cancel` makes it `cancelled` whatever the loop was doing (waiting for
 * the model, running a tool, waiting on a permission card), and every update is delivered, and
 * every call of the turn is in the audit log, before the prompt's response.
 */
export class AcpSession implements PermissionChannel, ElicitationChannel {
  readonly sessionId: string;
  readonly client: AgentContext;
  readonly #options: AcpSessionOptions;
  readonly #agent: Agent;
  readonly #mapper: UpdateMapper;
  readonly #permissionModes: PermissionMode[];
  #children: AcpChildHost | undefined;
  #running: AbortController | undefined;
  #delivered: Promise<void> = Promise.resolve();
  /** Prompts received on the wire, prompts started, and how many of the received a cancel covers. */
  #arrived = 0;
  #started = 0;
  #cancelledUpTo = 0;
  /** Tokens the provider reported for the running prompt (root and nested loops alike). */
  #usage = { inputTokens: 0, outputTokens: 0 };

  constructor(options: AcpSessionOptions) {
    this.#options = options;
    this.sessionId = options.session.id;
    this.client = options.client;
    const { task, session } = options;
    this.#permissionModes = allowedPermissionModes(options.loosest);
    this.#mapper = new UpdateMapper({
      catalog: session.catalog,
      workspace: task.workspace,
      reviews: sessionReviewStore(task.storage, task.session.id),
      send: (update) => this.#send(update),
      ...(options.child ? { agent: options.child.agent } : {}),
    });
    const model = observeToolCalls(options.model, (call) => this.#mapper.observe(call));
    const onEvent = (event: AgentEvent) => this.#onEvent(event);
    const { child } = options;
    if (child) {
      // As the root loop's own nested agents were: same model, its own session and name.
      this.#agent = new Agent({
        session,
        model,
        agent: child.agent,
        ...(child.instructions ? { instructions: child.instructions } : {}),
        onEvent,
      });
      return;
    }
    const provider = findAgentProvider(task.providers);
    const agentOptions = task.deployment.options["agent"] as AgentDeploymentOptions | undefined;
    this.#children = provider?.children && options.children ? options.children(this.#childRoot()) : undefined;
    this.#agent = new Agent({
      session,
      model,
      kernel: task.kernel,
      ...(provider ? { control: provider } : {}),
      ...(provider?.children && this.#children
        ? { children: { ...provider.children, host: this.#children } }
        : {}),
      instructions: taskInstructions(task, provider ? undefined : agentOptions?.instructions),
      onEvent,
    });
  }

  get session(): Session {
    return this.#options.session;
  }

  /** What `session/new` answers: the ID, the operating modes and the permission option. */
  describe(): NewSessionResponse {
    return {
      sessionId: this.sessionId,
      modes: modeState(this.session.mode),
      configOptions: this.configOptions(),
      _meta: {
        pablo: {
          refusedMcpServers: (this.#options.refused ?? []).filter((r) => r.tool === undefined),
          droppedMcpTools: (this.#options.refused ?? []).filter((r) => r.tool !== undefined),
        },
      },
    };
  }

  configOptions(): SessionConfigOption[] {
    return [permissionOption(this.session.permission.mode, this.#permissionModes)];
  }

  toolCall(request: PermissionRequest) {
    return this.#mapper.toolCall(request.callId, request.tool);
  }

  /** The running prompt's signal: cancelling the prompt withdraws the questions asked during it. */
  get turn(): AbortSignal | undefined {
    return this.#running?.signal;
  }

  /**
   * The running call an MCP server's question belongs to: MCP does not say, so it is named only
   * when exactly one call of that server's tools (native names `mcp/{server}/...`) is running.
   */
  elicitingCall(server: string): string | undefined {
    const prefix = `mcp/${server}/`;
    const calls = [...this.#mapper.running()].filter(([, tool]) => tool.startsWith(prefix));
    return calls.length === 1 ? calls[0]?.[0] : undefined;
  }

  async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
    if (this.#running)
      throw RequestError.invalidRequest(undefined, "a prompt is already running in this session");
    const controller = new AbortController();
    this.#started += 1;
    // A cancel that arrived after this prompt's request but before its handler ran still covers it.
    if (this.#started <= this.#cancelledUpTo) return { stopReason: "cancelled" };
    this.#running = controller;
    this.#usage = { inputTokens: 0, outputTokens: 0 };
    let result: AgentRunResult;
    try {
      result = await this.#agent.prompt(promptText(blocks), { signal: controller.signal });
    } finally {
      this.#running = undefined;
      // The response says the turn is over: by then every call of it is in the audit log. The JSONL
      // store writes at the end of the event-loop turn, which can come after the response is sent.
      await this.session.flushAudit();
    }
    await this.#delivered;
    // A child's supervisor reads the run's result (calls, files, accounting) from the response.
    const childResult = this.#options.child ? { result } : {};
    // A cancelled turn ends `cancelled` whatever the loop reported: never `end_turn` after a cancel.
    if (controller.signal.aborted)
      return { stopReason: "cancelled", ...(this.#options.child ? { _meta: { pablo: childResult } } : {}) };
    if (result.status === "model-error") {
      throw RequestError.internalError(
        { status: result.status, ...childResult },
        result.reason ?? "the model failed",
      );
    }
    const reason = stopReasonOf(result);
    if (result.status !== "completed" && result.reason) {
      this.#send({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: `\n\n[pablo: ${result.status}: ${result.reason}]` },
      });
      await this.#delivered;
    }
    // ACP's usage_update needs the model's context window size, which Pablo does not know for an
    // arbitrary model; the prompt's token counts and budgets travel in the response instead.
    return {
      stopReason: reason,
      _meta: {
        pablo: { status: result.status, usage: this.#usage, budgets: result.budgets, ...childResult },
      },
    };
  }

  /** Called in wire order for each `session/prompt` request, before any handler runs. */
  promptArrived(): void {
    this.#arrived += 1;
  }

  /**
   * `session/cancel`, in wire order: every prompt received so far ends `cancelled`, including one
   * whose handler has not started yet (the SDK dispatches handlers concurrently).
   */
  cancel(): void {
    this.#cancelledUpTo = this.#arrived;
    this.#running?.abort();
  }

  setMode(modeId: string): void {
    if (!isOperatingMode(modeId)) throw RequestError.invalidParams({ modeId }, `unknown mode ${modeId}`);
    this.session.setMode(modeId);
  }

  setConfigOption(configId: string, value: unknown): SessionConfigOption[] {
    if (configId !== PERMISSION_OPTION_ID) {
      throw RequestError.invalidParams({ configId }, `unknown config option ${configId}`);
    }
    if (typeof value !== "string" || !this.#permissionModes.includes(value as PermissionMode)) {
      throw RequestError.invalidParams(
        { value, allowed: this.#permissionModes },
        `permission must be one of ${this.#permissionModes.join(", ")}`,
      );
    }
    this.session.setPermission({ ...this.session.permission, mode: value as PermissionMode });
    return this.configOptions();
  }

  /** Stops what runs and closes the task; the session's ID is gone afterwards. */
  async close(): Promise<void> {
    this.cancel();
    await this.#delivered;
    if (this.#options.child) return;
    await this.#children?.close();
    await this.#options.close?.();
    await this.#options.task.close();
  }

  #onEvent(event: AgentEvent): void {
    if (event.type === "model.finished" && event.usage) {
      this.#usage.inputTokens += event.usage.inputTokens ?? 0;
      this.#usage.outputTokens += event.usage.outputTokens ?? 0;
    }
    this.#mapper.map(event);
    if (this.#options.child) {
      const { client, sessionId } = this;
      this.#deliver(() => client.notify(AGENT_EVENT_METHOD, { sessionId, event }));
    }
  }

  /**
   * What this session's children host is handed: child events join this session's own (the
   * editor sees the child's calls as it did when children ran in memory), a child's tool call
   * arguments reach the cards, and a child's permission request is asked on this session, as is
   * a question (when this session's broker can ask one).
   */
  #childRoot(): ChildHostRoot {
    const base = this.#options.task.kernel.options.broker;
    return {
      onEvent: (event) => this.#onEvent(event),
      onUpdate: ({ update }) => {
        if (update.sessionUpdate === "tool_call" && update.rawInput !== undefined)
          this.#mapper.observe({ id: update.toolCallId, name: "", input: JSON.stringify(update.rawInput) });
      },
      broker: base
        ? {
            request: (request, signal) => base.request({ ...request, sessionId: this.sessionId }, signal),
            ...(base.elicit ? { elicit: base.elicit.bind(base) } : {}),
          }
        : undefined,
    };
  }

  #send(update: SessionUpdate): void {
    const { client, sessionId } = this;
    this.#deliver(() => client.notify("session/update", { sessionId, update }));
  }

  /** In order, one after another; a closed connection drops the rest without failing the turn. */
  #deliver(send: () => Promise<void>): void {
    this.#delivered = this.#delivered.then(send).catch(() => undefined);
  }
}

/** The prompt as the model reads it: text blocks as they are, links and resources by URI. */
export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks
    .map((block) => {
      switch (block.type) {
        case "text":
          return block.text;
        case "resource_link":
          return `[${block.name}](${block.uri})`;
        case "resource":
          return "text" in block.resource
            ? `<resource uri="${block.resource.uri}">\n${block.resource.text}\n</resource>`
            : "";
        default:
          return "";
      }
    })
    .filter((text) => text !== "")
    .join("\n");
}

function stopReasonOf(result: AgentRunResult): StopReason {
  switch (result.status) {
    case "cancelled":
      return "cancelled";
    case "refused":
      return "refusal";
    case "incomplete":
    case "limit":
      return "max_tokens";
    case "budget":
      return "max_turn_requests";
    default:
      return "end_turn";
  }
}
