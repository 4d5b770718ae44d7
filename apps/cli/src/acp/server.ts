import { statSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import {
  type AgentApp,
  type AgentContext,
  type AnyMessage,
  agent as acpAgent,
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type Stream,
} from "@agentclientprotocol/sdk";
import { type AgentDeploymentOptions, createModel } from "@pablo/agent";
import type { PermissionOptions } from "@pablo/config";
import type { PermissionBroker, PermissionMode } from "@pablo/kernel";
import type { GlobalOptions } from "../args.js";
import { ConfigFailure, openTask, resolveBindings, type TaskEnvironment } from "../distribution.js";
import type { Io } from "../output.js";
import { AdmissionFailure } from "../providers.js";
import { openAcpCatalog } from "./catalog.js";
import { acpChildHost } from "./children.js";
import { acpElicit, canElicit } from "./elicitation.js";
import { acpBroker } from "./permission.js";
import { AcpSession } from "./session.js";

export interface AcpServerOptions {
  readonly version: string;
  /**
   * Opens what `session/new` asks for: a governed task per editor session ({@link editorSessions}),
   * or a supervised child's session that the supervisor already opened (see `children.ts`).
   */
  readonly open: OpenSession;
}

/** Makes the session a `session/new` request asks for; a thrown RequestError is the response. */
export type OpenSession = (request: SessionRequest) => Promise<AcpSession>;

/** What `session/new` carries, plus the connection it came on and this server's broker. */
export interface SessionRequest {
  readonly cwd: string;
  readonly mcpServers: readonly McpServer[];
  /** The request's `_meta`, as the client sent it. */
  readonly meta: Record<string, unknown> | undefined;
  readonly client: AgentContext;
  readonly capabilities: ClientCapabilities;
  /**
   * The session's broker: permission cards as `session/request_permission`, and, when the client
   * advertised `elicitation.form` at `initialize`, server questions as `elicitation/create`.
   */
  readonly broker: PermissionBroker;
}

/** The ACP agent and the sessions it holds; `close` ends every session and its task. */
export interface AcpServer {
  readonly app: AgentApp;
  /** Asks each permission request on the connection of the session that made it. */
  readonly broker: PermissionBroker;
  /**
   * Wraps the transport so prompts and cancels are seen in the order they arrive: connect the
   * app to `ordered(stream)`, never to the bare stream.
   */
  ordered(stream: Stream): Stream;
  close(): Promise<void>;
}

/**
 * `pablo acp` as ACP handlers: `initialize` advertises only what is built (text prompts, resource
 * links, HTTP and stdio MCP servers through the deployment's policy), `session/new` opens the
 * session `open` makes (for an editor: one governed task with the client's `cwd` as its
 * workspace), `session/prompt` runs the agent, `session/cancel` stops it, `session/set_mode`
 * switches the operating mode, `session/set_config_option` the permission mode, and
 * `session/close` ends a session's task (its MCP servers with it); the rest end when the
 * connection does. A client that advertises `elicitation.form` is asked its sessions' MCP server
 * questions with `elicitation/create`; without it, no server is offered elicitation.
 * `session/load` and `session/list` are neither advertised nor served: the audit log keeps one
 * record per call (hashes and redacted previews, no messages) and the session store keeps scratch
 * files and review snapshots, so no store holds a conversation to replay or resume.
 */
export function createAcpServer(options: AcpServerOptions): AcpServer {
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities = {};
  const broker = acpBroker((id) => sessions.get(id));
  const find = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  const app = acpAgent({ name: "pablo" })
    .onRequest(methods.agent.initialize, ({ params }): InitializeResponse => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
        agentCapabilities: {
          loadSession: false,
          promptCapabilities: { image: false, audio: false, embeddedContext: false },
          mcpCapabilities: { http: true, sse: false },
          sessionCapabilities: { close: {} },
        },
        agentInfo: { name: "pablo", title: "Pablo", version: options.version },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      // The session's questions go to the session itself, known once `open` has made it; the task
      // (and its MCP servers) is opened with this broker, so `elicit` exists only when it can ask.
      let opened: AcpSession | undefined;
      const session = await options.open({
        cwd: params.cwd,
        mcpServers: params.mcpServers,
        meta: params._meta ?? undefined,
        client,
        capabilities,
        broker: canElicit(capabilities)
          ? { request: broker.request.bind(broker), elicit: acpElicit(() => opened) }
          : broker,
      });
      opened = session;
      sessions.set(session.sessionId, session);
      return session.describe();
    })
    .onRequest(methods.agent.session.prompt, ({ params }) => find(params.sessionId).prompt(params.prompt))
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      find(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest(methods.agent.session.setConfigOption, ({ params }) => ({
      configOptions: find(params.sessionId).setConfigOption(params.configId, params.value),
    }))
    .onRequest(methods.agent.session.close, async ({ params }) => {
      // Ends the session's prompt, its MCP servers and its task; the ID is unknown afterwards.
      const session = find(params.sessionId);
      sessions.delete(params.sessionId);
      await session.close();
      return {};
    });

  return {
    app,
    broker,
    ordered: (stream) => ({
      writable: stream.writable,
      readable: stream.readable.pipeThrough(
        new TransformStream<AnyMessage, AnyMessage>({
          transform(message, controller) {
            const arrival = arrivalOf(message);
            if (arrival) {
              const session = sessions.get(arrival.sessionId);
              if (arrival.method === "session/prompt") session?.promptArrived();
              else session?.cancel();
            }
            controller.enqueue(message);
          },
        }),
      ),
    }),
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((s) => s.close().catch(() => undefined)));
    },
  };
}

/** The session a prompt request or a cancel notification is for, read before the SDK parses it. */
function arrivalOf(
  message: AnyMessage,
): { method: "session/prompt" | "session/cancel"; sessionId: string } | undefined {
  if (!("method" in message)) return undefined;
  const isPrompt = message.method === "session/prompt" && "id" in message;
  if (!isPrompt && message.method !== "session/cancel") return undefined;
  const params = message.params as { sessionId?: unknown } | undefined;
  if (typeof params?.sessionId !== "string") return undefined;
  return { method: isPrompt ? "session/prompt" : "session/cancel", sessionId: params.sessionId };
}

export interface EditorSessionOptions {
  readonly io: Io;
  readonly global: GlobalOptions;
  /** `--model PROVIDER:NAME`; else `[options.agent] model`; else `PABLO_MODEL`. */
  readonly model: string | undefined;
}

/**
 * `pablo acp`'s sessions: each `session/new` opens one governed task with the client's `cwd` as
 * its workspace, the client's MCP servers through the deployment's policy, and (when the
 * deployment enables children) its children run as in-process ACP sessions of their own.
 */
export function editorSessions(options: EditorSessionOptions): OpenSession {
  return (request) => openSession(options, request);
}

async function openSession(options: EditorSessionOptions, request: SessionRequest): Promise<AcpSession> {
  const { io, global } = options;
  const workspace = checkedWorkspace(request.cwd, global, io.cwd);
  let task: TaskEnvironment;
  try {
    task = await openTask(
      { ...global, workspace },
      { cwd: io.cwd, env: io.env, signal: io.signal, broker: request.broker },
    );
  } catch (error) {
    throw asRequestError(error);
  }
  try {
    const agentOptions = task.deployment.options["agent"] as AgentDeploymentOptions | undefined;
    const spec = options.model ?? agentOptions?.model ?? io.env["PABLO_MODEL"];
    if (!spec) {
      throw RequestError.internalError(
        { code: "MODEL_SPEC" },
        "pablo acp needs a model: --model anthropic:NAME, openai-compatible:NAME or replay:FILE (or PABLO_MODEL)",
      );
    }
    const created = createModel(spec, io.env, { resolver: task.credentials }, { cwd: io.cwd });
    if (!created.ok) throw RequestError.internalError({ code: created.code }, created.message);
    const opened = await openAcpCatalog(task, {
      mcpServers: request.mcpServers,
      client: request.client,
      capabilities: request.capabilities,
      stderr: io.stderr,
    });
    const permission = task.deployment.options["permission"] as PermissionOptions | undefined;
    return new AcpSession({
      task,
      session: opened.session,
      client: request.client,
      model: created.model,
      loosest: permission?.loosest as PermissionMode | undefined,
      refused: opened.refused,
      close: opened.close,
      children: (root) => acpChildHost({ task, model: created.model, ...root }),
    });
  } catch (error) {
    await task.close().catch(() => undefined);
    throw asRequestError(error);
  }
}

/**
 * The client's `cwd` becomes the workspace: absolute, an existing directory, and inside the
 * workspace `pablo acp` was started with when one was given (`--workspace` or `--bind
 * workspace=DIR`), so an editor cannot move a pinned deployment elsewhere.
 */
export function checkedWorkspace(cwd: string, global: GlobalOptions, startCwd: string): string {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, not ${cwd}`);
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    // Reported below as not an existing directory.
  }
  if (!isDirectory) throw RequestError.invalidParams({ cwd }, `cwd ${cwd} is not an existing directory`);
  const pinned = global.workspace !== undefined || global.binds.some((b) => b.startsWith("workspace="));
  if (pinned) {
    const root = resolveBindings(global, startCwd).workspace;
    const { workspace } = resolveBindings({ ...global, workspace: cwd }, startCwd);
    const inside = relative(root, workspace);
    if (inside.startsWith(`..${sep}`) || inside === ".." || isAbsolute(inside)) {
      throw RequestError.invalidParams(
        { cwd, root },
        `cwd ${cwd} is outside the deployment's workspace ${root}`,
      );
    }
  }
  return cwd;
}

/** Configuration and admission failures reach the editor as errors with the CLI's message. */
function asRequestError(error: unknown): unknown {
  if (error instanceof RequestError) return error;
  if (error instanceof ConfigFailure) return RequestError.invalidParams({ code: "CONFIG" }, error.message);
  if (error instanceof AdmissionFailure)
    return RequestError.internalError({ code: error.code }, error.message);
  return error;
}
