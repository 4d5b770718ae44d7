import { randomUUID } from "node:crypto";
import {
  type AnyMessage,
  client as acpClient,
  type ClientContext,
  methods,
  PROTOCOL_VERSION,
  type PromptResponse,
  RequestError,
  type SessionNotification,
  type Stream,
} from "@agentclientprotocol/sdk";
import type {
  AgentEvent,
  AgentEventListener,
  AgentRunResult,
  ChildHost,
  Model,
  NestedAgent,
  RunStatus,
} from "@pablo/agent";
import type { PermissionAnswer, PermissionBroker, PermissionRequest, Session } from "@pablo/kernel";
import type { TaskEnvironment } from "../distribution.js";
import { PermissionOptionId } from "./permission.js";
import { createAcpServer, type SessionRequest } from "./server.js";
import { AcpSession, AGENT_EVENT_METHOD } from "./session.js";

/** What the root hands the host of its children. */
export interface ChildHostRoot {
  /** The root's listener: each child's agent events, as they arrive over the child's connection. */
  readonly onEvent: AgentEventListener;
  /** Every `session/update` a child's ACP session sends, in order. */
  readonly onUpdate?: (notification: SessionNotification) => void;
  /**
   * Where a child's permission request (and, when it has `elicit`, a question) is finally asked:
   * the root's broker. Absent, a child's session has none either and fails closed, as the root does.
   */
  readonly broker: PermissionBroker | undefined;
}

export interface AcpChildHostOptions extends ChildHostRoot {
  /** The root's task: its workspace is each child's `cwd`, its review store the diffs' source. */
  readonly task: TaskEnvironment;
  readonly model: Model;
}

/** A {@link ChildHost} whose children are ACP sessions; `close` ends their connection. */
export interface AcpChildHost extends ChildHost {
  close(): Promise<void>;
}

/**
 * Runs supervised children through the ACP handlers `pablo acp` serves, in-process: the
 * supervisor opens and narrows each child's kernel session as always, then the child becomes
 * `session/new` (the root's workspace as `cwd`; the kernel session is claimed by a one-use token
 * in `_meta`), `session/prompt` with the task, and `session/close`. Its updates and agent events
 * come back to the root; a cancel is `session/cancel`; its permission requests are
 * `session/request_permission`, which this client answers by asking the root's broker.
 */
export function acpChildHost(options: AcpChildHostOptions): AcpChildHost {
  const pending = new Map<string, PendingChild>();
  const server = createAcpServer({ version: "child", open: (request) => claim(request) });
  // The original request of each card this client is asked, by child session and call.
  const cards = new Map<string, PermissionRequest>();
  let connection: Promise<{ agent: ClientContext; close: () => void }> | undefined;

  const claim = async (request: SessionRequest): Promise<AcpSession> => {
    const meta = request.meta?.["pablo"] as { child?: unknown } | undefined;
    const child = typeof meta?.child === "string" ? pending.get(meta.child) : undefined;
    if (!child) throw RequestError.invalidParams(undefined, "this agent serves only supervised children");
    pending.delete(meta?.child as string);
    return new AcpSession({
      task: options.task,
      session: child.session,
      client: request.client,
      model: options.model,
      loosest: undefined,
      child: { agent: child.agent, instructions: child.instructions },
    });
  };

  const app = acpClient({ name: "pablo-supervisor" })
    .onNotification(methods.client.session.update, ({ params }) => options.onUpdate?.(params))
    .onNotification(AGENT_EVENT_METHOD, parseAgentEvent, ({ params }) => options.onEvent(params.event))
    .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
      const request = cards.get(cardKey(params.sessionId, params.toolCall.toolCallId));
      const answer: PermissionAnswer =
        request && options.broker
          ? await options.broker.request(request, signal).catch(() => "deny")
          : "deny";
      return { outcome: { outcome: "selected", optionId: OPTION_OF[answer] } };
    });

  const connect = () => {
    connection ??= (async () => {
      const [agentEnd, clientEnd] = streamPair();
      // `ordered` as for an editor, so a cancel right behind its prompt still covers it.
      const agentSide = server.app.connect(server.ordered(agentEnd));
      const clientSide = app.connect(clientEnd);
      await clientSide.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      return {
        agent: clientSide.agent,
        close: () => {
          clientSide.close();
          agentSide.close();
        },
      };
    })();
    return connection;
  };

  const run = async (child: PendingChild, task: string, signal: AbortSignal): Promise<AgentRunResult> => {
    if (signal.aborted) return emptyResult("cancelled", "cancelled before it started");
    const { agent } = await connect();
    const token = randomUUID();
    pending.set(token, child);
    const { sessionId } = await agent.request(methods.agent.session.new, {
      cwd: options.task.workspace,
      mcpServers: [],
      _meta: { pablo: { child: token } },
    });
    const cancel = () =>
      void agent.notify(methods.agent.session.cancel, { sessionId }).catch(() => undefined);
    try {
      const prompted = agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: task }],
      });
      // After the prompt is on the wire, so the cancel is seen behind it and covers it.
      if (signal.aborted) cancel();
      else signal.addEventListener("abort", cancel, { once: true });
      return resultOf(await prompted);
    } catch (error) {
      const data = error instanceof RequestError ? (error.data as { result?: AgentRunResult }) : undefined;
      return (
        data?.result ?? emptyResult("model-error", error instanceof Error ? error.message : String(error))
      );
    } finally {
      signal.removeEventListener("abort", cancel);
      await agent.request(methods.agent.session.close, { sessionId }).catch(() => undefined);
    }
  };

  // A question carries no session to route it over the children's connection: it goes straight
  // to the root's broker, which asks it on the root's session (the editor shows children's calls
  // there too). Without the root's `elicit`, a child's broker has none either.
  const rootElicit = options.broker?.elicit?.bind(options.broker);
  const childBroker: PermissionBroker = {
    async request(request, signal) {
      const key = cardKey(request.sessionId, request.callId);
      cards.set(key, request);
      try {
        return await server.broker.request(request, signal);
      } finally {
        cards.delete(key);
      }
    },
    ...(rootElicit ? { elicit: rootElicit } : {}),
  };

  return {
    spawn: (session, agent, instructions): NestedAgent => ({
      prompt: (text, { signal }) => run({ session, agent, instructions }, text, signal),
    }),
    ...(options.broker ? { broker: childBroker } : {}),
    close: async () => {
      await server.close();
      if (connection) (await connection).close();
    },
  };
}

interface PendingChild {
  readonly session: Session;
  readonly agent: string;
  readonly instructions: string | undefined;
}

const OPTION_OF: Readonly<Record<PermissionAnswer, string>> = {
  "allow-once": PermissionOptionId.ALLOW_ONCE,
  "allow-session": PermissionOptionId.ALLOW_ALWAYS,
  deny: PermissionOptionId.REJECT,
};

function cardKey(sessionId: string, callId: string): string {
  return `${sessionId}\u0000${callId}`;
}

/** Only our own in-process agent sends this notification; the shape is checked, not trusted blindly. */
function parseAgentEvent(params: unknown): { sessionId: string; event: AgentEvent } {
  const value = params as { sessionId?: unknown; event?: { type?: unknown; agent?: unknown } } | undefined;
  if (typeof value?.sessionId !== "string" || typeof value.event?.type !== "string")
    throw RequestError.invalidParams(undefined, "an agent event needs sessionId and event.type");
  return value as { sessionId: string; event: AgentEvent };
}

/** The run's result the child's session put in its response, else one that says how it stopped. */
function resultOf(response: PromptResponse): AgentRunResult {
  const result = (response._meta?.["pablo"] as { result?: AgentRunResult } | undefined)?.result;
  if (result) return result;
  return emptyResult(response.stopReason === "cancelled" ? "cancelled" : "model-error", response.stopReason);
}

function emptyResult(status: RunStatus, reason: string): AgentRunResult {
  return {
    status,
    reason,
    text: "",
    turns: 0,
    calls: [],
    denials: [],
    changes: [],
    artifacts: [],
    committed: [],
    budgets: {
      modelCalls: 0,
      toolCalls: 0,
      elapsedMs: 0,
      remainingMs: 0,
      events: 0,
      eventsDropped: 0,
      outputBytes: 0,
      largestRequestBytes: 0,
      compactions: 0,
    },
  };
}

/** Two connected ends that pass messages as objects: no bytes, no serialization. */
function streamPair(): [Stream, Stream] {
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  return [
    { readable: toAgent.readable, writable: toClient.writable },
    { readable: toClient.readable, writable: toAgent.writable },
  ];
}
