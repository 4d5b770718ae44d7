import type {
  AuthorityLayer,
  CatalogDiagnostic,
  CredentialResolver,
  PermissionBroker,
  ToolProvider,
} from "@pablo/kernel";
import {
  defaultTokenDir,
  McpAdmissionError,
  type McpAuthorizationState,
  type McpOptions,
  mcpAuthorizationStates,
  openMcpCatalog,
} from "@pablo/mcp";
import { AdmissionFailure } from "./admission.js";

export interface OpenedMcp {
  readonly providers: ToolProvider[];
  /** Live: servers that exit and tools that change during the task are added. */
  diagnostics(): CatalogDiagnostic[];
  /** Where each `auth = "oauth"` server stands, read from the token store before connecting. */
  readonly authorization: readonly McpAuthorizationState[];
  close(): Promise<void>;
}

/** Opens fresh MCP sessions for the task; a required server that fails refuses admission. */
export async function openMcp(
  section: McpOptions | undefined,
  context: {
    credentials: CredentialResolver;
    layers: readonly AuthorityLayer[];
    signal?: AbortSignal;
    /** The task's broker: only when it can answer questions is elicitation declared to servers. */
    broker?: PermissionBroker;
    /** How long a question waits for its answer before it is declined (the card timeout). */
    questionTimeoutMs?: number | undefined;
  },
): Promise<OpenedMcp> {
  if (!section?.servers || Object.keys(section.servers).length === 0) {
    return { providers: [], diagnostics: () => [], authorization: [], close: async () => undefined };
  }
  const authorization = mcpAuthorizationStates(section.servers, defaultTokenDir());
  try {
    const catalog = await openMcpCatalog({
      servers: section.servers,
      credentials: context.credentials,
      layers: context.layers,
      ...(context.signal ? { signal: context.signal } : {}),
      ...(context.broker?.elicit ? { elicit: context.broker.elicit.bind(context.broker) } : {}),
      ...(context.questionTimeoutMs ? { elicitTimeoutMs: context.questionTimeoutMs } : {}),
    });
    return {
      providers: [...catalog.providers],
      diagnostics: () =>
        catalog.diagnostics.map((d) => ({
          source: `mcp/${d.server}`,
          ...(d.tool ? { tool: d.tool } : {}),
          code: d.code,
          message: d.message,
        })),
      authorization,
      close: () => catalog.close(),
    };
  } catch (error) {
    if (error instanceof McpAdmissionError) {
      const details = error.diagnostics.map((d) => `${d.server}: ${d.message}`).join("; ");
      throw new AdmissionFailure(`${error.message}${details ? ` (${details})` : ""}`, error.code);
    }
    throw error;
  }
}
