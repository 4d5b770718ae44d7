import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  type Access,
  type AuthorityLayer,
  type CredentialResolver,
  evaluateAuthority,
  type ToolProvider,
} from "@pablo/kernel";
import { McpConnection } from "./connection.js";
import { McpAdmissionCode, McpAdmissionError, type McpDiagnostic, McpDiagnosticCode } from "./diagnostics.js";
import { answerElicitation, type McpElicitHandler } from "./elicitation.js";
import { defaultTokenDir } from "./oauth/token-store.js";
import { prepareTransport } from "./open-transport.js";
import { type ResolvedServer, resolveServer } from "./resolved-server.js";
import { McpServerProvider } from "./server-provider.js";
import { TapTransport } from "./tap-transport.js";

export interface McpCatalogConfig {
  /** `[options.mcp.servers]`, with `cwd` already resolved to an absolute directory. */
  readonly servers: Readonly<Record<string, unknown>>;
  /** The only source of secrets: consumers `mcp.environment` / `mcp.headers`, destination = server name. */
  readonly credentials: CredentialResolver;
  /** The task's signal: aborting it cancels admission, or closes every server afterwards. */
  readonly signal?: AbortSignal;
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** The task's authority layers: a server or launcher they deny is never started. */
  readonly layers?: readonly AuthorityLayer[];
  /** Where `auth = "oauth"` servers' tokens are (`pablo mcp login`). Default `<state>/mcp-oauth`. */
  readonly tokenDir?: string;
  /**
   * The host's question facility (`PermissionBroker.elicit`). Only when given is the
   * `elicitation` (form) capability declared; with none, no server is told it may ask.
   */
  readonly elicit?: McpElicitHandler;
  /** Milliseconds an elicitation waits for an answer before it is declined; 120 s by default. */
  readonly elicitTimeoutMs?: number;
}

export interface McpCatalog {
  /** One provider per admitted server, id `mcp/{server}`; add them to the task's CatalogBuilder. */
  readonly providers: readonly ToolProvider[];
  /** What was left out and why. Live: servers that exit and tools that change are added during the task. */
  readonly diagnostics: readonly McpDiagnostic[];
  /** Ends every session and reaps every stdio process group. Contract: never throws. */
  close(): Promise<void>;
}

const DEFAULT_CLIENT = { name: "pablo", version: "0.1.0" } as const;

/**
 * Opens fresh MCP sessions for one task: every configured server is started in parallel
 * (those the layers deny are not), initialized and listed within its startup timeout, and each
 * listed tool becomes a governed kernel tool. A `required` server that fails rejects with
 * {@link McpAdmissionError} after everything started has been closed; an optional one becomes
 * a diagnostic. Call it once per task and `close()` when the task ends.
 */
export async function openMcpCatalog(config: McpCatalogConfig): Promise<McpCatalog> {
  const signal = config.signal ?? new AbortController().signal;
  const servers = resolveAll(config.servers);
  const diagnostics: McpDiagnostic[] = [];
  const report = (diagnostic: McpDiagnostic) => diagnostics.push(diagnostic);
  if (signal.aborted) throw cancelled(diagnostics);

  const admitted = servers.filter((server) => {
    const decision = evaluateAuthority(config.layers ?? [], serverAccesses(server));
    if (decision.verdict === "allow") return true;
    report({
      server: server.name,
      code: McpDiagnosticCode.SERVER_DENIED,
      message: `not started: denied by ${decision.layer}/${decision.rule}: ${decision.reason}`,
    });
    return false;
  });
  const started = await Promise.all(admitted.map((server) => startServer(server, config, signal, report)));
  const providers = started.filter((p): p is McpServerProvider => p !== undefined);
  const closeAll = async () => {
    const reaped = await Promise.all(providers.map((p) => p.closeReaped()));
    reaped.forEach((ok, i) => {
      if (!ok) {
        const server = providers[i]?.server ?? "?";
        report({
          server,
          code: McpDiagnosticCode.CLEANUP_FAILED,
          message: "the server's processes could not be proven ended",
        });
      }
    });
  };

  if (signal.aborted) {
    await closeAll();
    throw cancelled(diagnostics);
  }
  const failedRequired = admitted.filter((s, i) => s.required && started[i] === undefined);
  if (failedRequired.length > 0) {
    await closeAll();
    const reasons = failedRequired.map((s) => {
      const why = diagnostics.find((d) => d.server === s.name)?.message ?? "it did not start";
      return `required MCP server ${s.name} failed to start: ${why}`;
    });
    throw new McpAdmissionError(McpAdmissionCode.REQUIRED_SERVER_FAILED, reasons.join("; "), [
      ...diagnostics,
    ]);
  }
  excludeCollisions(providers, report);

  let closing: Promise<void> | undefined;
  const close = () => {
    signal.removeEventListener("abort", onAbort);
    closing ??= closeAll();
    return closing;
  };
  const onAbort = () => void close();
  signal.addEventListener("abort", onAbort, { once: true });
  return { providers, diagnostics, close };
}

function cancelled(diagnostics: readonly McpDiagnostic[]): McpAdmissionError {
  return new McpAdmissionError(McpAdmissionCode.CANCELLED, "MCP admission was cancelled", [...diagnostics]);
}

/** The accesses that decide whether a server may start at all. */
function serverAccesses(server: ResolvedServer): Access[] {
  return [
    { dimension: "mcp.server", value: server.name },
    ...(server.transport === "stdio" ? [{ dimension: "mcp.launcher", path: server.command } as const] : []),
  ];
}

function resolveAll(raw: Readonly<Record<string, unknown>>): ResolvedServer[] {
  const servers: ResolvedServer[] = [];
  const problems: McpDiagnostic[] = [];
  for (const [name, entry] of Object.entries(raw)) {
    const resolved = resolveServer(name, entry);
    if ("problem" in resolved)
      problems.push({ server: name, code: McpDiagnosticCode.SERVER_CONFIG, message: resolved.problem });
    else servers.push(resolved);
  }
  if (problems.length > 0) {
    const text = problems.map((p) => `[options.mcp.servers.${p.server}] ${p.message}`).join("; ");
    throw new McpAdmissionError(
      McpAdmissionCode.INVALID_CONFIG,
      `invalid MCP configuration: ${text}`,
      problems,
    );
  }
  return servers;
}

async function startServer(
  server: ResolvedServer,
  config: McpCatalogConfig,
  signal: AbortSignal,
  report: (diagnostic: McpDiagnostic) => void,
): Promise<McpServerProvider | undefined> {
  const prepared = prepareTransport(server, config.credentials, {
    tokenDir: config.tokenDir ?? defaultTokenDir(),
    layers: config.layers ?? [],
  });
  if (!prepared.ok) {
    report({ server: server.name, code: prepared.code, message: prepared.message });
    return undefined;
  }
  const elicit = config.elicit;
  const client = new Client(config.clientInfo ?? DEFAULT_CLIENT, {
    capabilities: elicit ? { elicitation: { form: {} } } : {},
  });
  // Assigned just below; a question can only arrive once the connection has started.
  let connection: McpConnection | undefined;
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const answer = await answerElicitation(
        server.name,
        request.params,
        elicit,
        extra.signal,
        config.elicitTimeoutMs,
      );
      connection?.noteElicitation(answer.action);
      return answer;
    });
  }
  connection = new McpConnection(
    server,
    client,
    new TapTransport(prepared.transport),
    prepared.stdio,
    prepared.secrets,
  );
  try {
    const tools = await connection.start(signal);
    return new McpServerProvider(connection, tools, report);
  } catch (error) {
    await connection.close().catch(() => false);
    const message = error instanceof Error ? error.message : String(error);
    report({ server: server.name, code: McpDiagnosticCode.SERVER_FAILED, message });
    return undefined;
  }
}

/** Two tools with one provider name would be ambiguous to a model: both are left out. */
function excludeCollisions(
  providers: readonly McpServerProvider[],
  report: (d: McpDiagnostic) => void,
): void {
  const byProviderName = new Map<string, Array<{ server: string; name: string }>>();
  for (const provider of providers) {
    for (const tool of provider.tools()) {
      const key = tool.providerName ?? tool.name;
      byProviderName.set(key, [
        ...(byProviderName.get(key) ?? []),
        { server: provider.server, name: tool.name },
      ]);
    }
  }
  const excluded = new Set<string>();
  for (const [providerName, owners] of byProviderName) {
    if (owners.length < 2) continue;
    for (const owner of owners) {
      excluded.add(owner.name);
      report({
        server: owner.server,
        tool: owner.name.slice(`mcp/${owner.server}/`.length),
        code: McpDiagnosticCode.NAME_COLLISION,
        message: `provider name ${providerName} is shared by ${owners.map((o) => o.name).join(" and ")}; both are left out`,
      });
    }
  }
  for (const provider of providers) provider.exclude(excluded);
}
