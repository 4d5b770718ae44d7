import type { AgentContext, ClientCapabilities, McpServer } from "@agentclientprotocol/sdk";
import { ControlToolName } from "@pablo/agent";
import { createFsTools, createLocalFs, createScratchRoot, type FsOptions } from "@pablo/fs";
import {
  type AuthorityLayer,
  CatalogBuilder,
  defineLayer,
  type NameRule,
  type Session,
  type ToolProvider,
} from "@pablo/kernel";
import { isLoopbackHost, type McpOptions, openMcpCatalog } from "@pablo/mcp";
import type { TaskEnvironment } from "../distribution.js";
import { disabledToolLayer } from "../layers.js";
import { sessionReviewStore } from "../storage.js";
import { editorFs } from "./editor-fs.js";

export interface AcpCatalogRequest {
  readonly mcpServers: readonly McpServer[];
  readonly client: AgentContext;
  readonly capabilities: ClientCapabilities;
  readonly stderr: (text: string) => void;
}

/** Why a client MCP server (or, with `tool`, one of its tools) was not attached. */
export interface RefusedServer {
  readonly server: string;
  readonly tool?: string;
  readonly code: string;
  readonly message: string;
}

export interface AcpCatalog {
  /** The kernel session the agent runs on. */
  readonly session: Session;
  /** Client MCP servers, and tools of attached ones, that were left out, and why (also on stderr). */
  readonly refused: readonly RefusedServer[];
  close(): Promise<void>;
}

/** The layer that turns asktool off: ACP sessions have no question channel yet. */
export const NO_QUESTIONS_RULE = "acp.no-question-channel";
/** The layer ID that admits client MCP servers only where the deployment's policy names them. */
export const CLIENT_MCP_LAYER = "acp.client-mcp";

/**
 * The session an ACP prompt runs on. Without client MCP servers and without the editor's file
 * methods it is the task's own session; otherwise a session over a fresh catalog with the same
 * layers, mode and permission profile: the fs tools on the editor port, plus the client's MCP
 * servers that the deployment's policy admits. asktool is never offered (no question channel).
 */
export async function openAcpCatalog(task: TaskEnvironment, request: AcpCatalogRequest): Promise<AcpCatalog> {
  const noQuestions = disabledToolLayer("acp", ControlToolName.ASK, NO_QUESTIONS_RULE);
  const fs = request.capabilities.fs ?? {};
  const editor = fs.readTextFile === true || fs.writeTextFile === true;
  if (!editor && request.mcpServers.length === 0) {
    task.session.narrow(noQuestions);
    return { session: task.session, refused: [], close: async () => undefined };
  }
  const sessionId = task.session.id;
  const providers: ToolProvider[] = [...task.providers];
  if (editor) {
    const index = providers.findIndex((p) => p.id === "fs");
    const fsOptions = task.deployment.options["fs"] as Partial<FsOptions> | undefined;
    const tools = await createFsTools({
      workspace: task.workspace,
      scratch: createScratchRoot(task.storage.dataDir, sessionId),
      reviews: sessionReviewStore(task.storage, sessionId),
      io: editorFs(createLocalFs(), task.workspace, {
        canRead: fs.readTextFile === true,
        canWrite: fs.writeTextFile === true,
        read: async (path) =>
          (await request.client.request("fs/read_text_file", { sessionId, path })).content,
        write: async (path, content) => {
          await request.client.request("fs/write_text_file", { sessionId, path, content });
        },
      }),
      ...(fsOptions ? { options: fsOptions as FsOptions } : {}),
    });
    if (index >= 0) providers[index] = { id: "fs", tools: () => tools };
  }
  const mcp = await openClientMcp(task, request);
  for (const refusal of mcp.refused) {
    request.stderr(
      `pablo acp: MCP server ${refusal.server} not attached: ${refusal.message} [${refusal.code}]\n`,
    );
  }
  const builder = new CatalogBuilder();
  await builder.addProviders([...providers, ...mcp.providers]);
  const session = task.kernel.openSession({
    sessionId,
    catalog: builder.build(),
    layers: [...task.session.layers, noQuestions],
    mode: task.session.mode,
    permission: task.session.permission,
  });
  return { session, refused: mcp.refused, close: mcp.close };
}

interface ClientMcp {
  readonly providers: readonly ToolProvider[];
  readonly refused: RefusedServer[];
  close(): Promise<void>;
}

/**
 * The client's MCP servers through the deployment's MCP policy. A client server attaches only
 * when an `[[options.mcp.policies]]` entry allows it by name (`servers.allow`), and then still
 * under every layer of the task (a deny, a launcher rule). It gets a cleared environment and no
 * headers: values the editor sends are not credentials the deployment named, so a server that
 * needs them is refused rather than started without them. SSE is not supported.
 */
async function openClientMcp(task: TaskEnvironment, request: AcpCatalogRequest): Promise<ClientMcp> {
  const refused: RefusedServer[] = [];
  const servers: Record<string, unknown> = {};
  const configured = (task.deployment.options["mcp"] as McpOptions | undefined)?.servers ?? {};
  for (const server of request.mcpServers) {
    const refuse = (code: string, message: string) => refused.push({ server: server.name, code, message });
    if (server.name in configured || server.name in servers) {
      refuse("MCP_SERVER_NAME", "the deployment already has a server of this name");
    } else if ("type" in server && server.type === "sse") {
      refuse("MCP_TRANSPORT_UNSUPPORTED", "SSE servers are not supported; use Streamable HTTP");
    } else if ("type" in server && server.type === "http") {
      if (server.headers.length > 0) {
        refuse(
          "MCP_CLIENT_SECRETS",
          "headers from the client are not sent; name credentials in the deployment",
        );
      } else {
        const loopback = URL.canParse(server.url) && isLoopbackHost(new URL(server.url).hostname);
        servers[server.name] = { transport: "http", url: server.url, allow_loopback_http: loopback };
      }
    } else if ("command" in server) {
      if (server.env.length > 0) {
        refuse(
          "MCP_CLIENT_SECRETS",
          "environment from the client is not passed; name credentials in the deployment",
        );
      } else {
        servers[server.name] = {
          transport: "stdio",
          command: server.command,
          args: server.args,
          cwd: task.workspace,
        };
      }
    }
  }
  if (Object.keys(servers).length === 0) return { providers: [], refused, close: async () => undefined };
  // The session's broker asks the editor; only when it can are client servers offered elicitation.
  const broker = task.kernel.options.broker;
  const catalog = await openMcpCatalog({
    servers,
    credentials: task.credentials,
    layers: [...task.session.layers, clientMcpLayer(task)],
    ...(broker?.elicit ? { elicit: broker.elicit.bind(broker) } : {}),
  });
  for (const d of catalog.diagnostics) {
    refused.push({ server: d.server, ...(d.tool ? { tool: d.tool } : {}), code: d.code, message: d.message });
  }
  return { providers: catalog.providers, refused, close: () => catalog.close() };
}

/** Admits exactly the servers that some `[[options.mcp.policies]]` entry allows by name. */
function clientMcpLayer(task: TaskEnvironment): AuthorityLayer {
  const policies = (task.deployment.options["mcp"] as McpOptions | undefined)?.policies ?? [];
  const allow: NameRule[] = policies.flatMap((policy) =>
    (policy.servers?.allow ?? []).map((rule) => ({ id: rule.id, match: rule.value })),
  );
  return defineLayer({
    id: CLIENT_MCP_LAYER,
    description: "client MCP servers attach only where the deployment's MCP policy allows them by name",
    "mcp.server": { default: "deny", ...(allow.length > 0 ? { allow } : {}) },
  } as AuthorityLayer);
}
