import type { AgentCard } from "@a2a-js/sdk";
import { type Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import {
  type AuthorityLayer,
  type CatalogDiagnostic,
  type CredentialResolver,
  evaluateAuthority,
  providerNameFor,
  type ToolProvider,
} from "@pablo/kernel";
import { fetchCard } from "./card.js";
import { type A2aDiagnostic, A2aDiagnosticCode } from "./codes.js";
import { guardedFetch } from "./guarded-fetch.js";
import { A2A_DEFAULTS, type A2aRemoteConfig } from "./options-schema.js";
import { a2aToolName, createRemoteTool } from "./remote-tool.js";
import { checkRemoteUrl } from "./remote-url.js";

export interface A2aRemotesConfig {
  /** `[options.a2a.remotes]`, already validated against `A2aRemoteSchema`. */
  readonly remotes: Readonly<Record<string, A2aRemoteConfig>>;
  /** The only source of the bearer: consumer `a2a.bearer`, destination the exact endpoint. */
  readonly credentials: CredentialResolver;
  /** The task's layers: a remote whose card URL or endpoint they deny is never contacted. */
  readonly layers?: readonly AuthorityLayer[];
  readonly signal?: AbortSignal;
}

/** What `pablo tools --explain` shows for each configured remote. */
export interface RemoteStatus {
  readonly remote: string;
  readonly tool: string;
  readonly admitted: boolean;
  readonly cardUrl: string;
  readonly endpoint: string;
  /** `admitted`, or the diagnostic code that kept it out. */
  readonly card: string;
  readonly streaming?: boolean;
}

/** The provider of a task's remotes: one tool per admitted remote, and every remote's status. */
export interface A2aToolProvider extends ToolProvider {
  readonly id: "a2a";
  readonly statuses: readonly RemoteStatus[];
}

export interface A2aRemotes {
  /** One provider, id `a2a`, when any remote is configured (its tools may be none). */
  readonly providers: readonly A2aToolProvider[];
  readonly diagnostics: readonly A2aDiagnostic[];
  readonly statuses: readonly RemoteStatus[];
  /** In the kernel's catalog-diagnostic shape, for a distribution's `--explain`. */
  catalogDiagnostics(): CatalogDiagnostic[];
}

/**
 * Admits the configured remotes for one task, in parallel: each URL is checked (https, or
 * allowed loopback http), the layers decide both URLs before anything is fetched, the card is
 * fetched without credentials and checked, and the bearer is resolved for the exact endpoint.
 * A remote that fails any step is left out with a diagnostic; nothing here throws for remote
 * or configuration content.
 */
export async function openA2aRemotes(config: A2aRemotesConfig): Promise<A2aRemotes> {
  const entries = Object.entries(config.remotes);
  const outcomes = await Promise.all(entries.map(([name, remote]) => admitRemote(name, remote, config)));
  const diagnostics = outcomes.map((o) => o.diagnostic);
  const admitted = outcomes.filter((o) => o.tool !== undefined);
  const byProvider = new Map<string, string[]>();
  for (const o of admitted) {
    const key = providerNameFor(a2aToolName(o.remote));
    byProvider.set(key, [...(byProvider.get(key) ?? []), o.remote]);
  }
  const colliding = new Set([...byProvider.values()].filter((names) => names.length > 1).flat());
  const tools = admitted.filter((o) => !colliding.has(o.remote)).flatMap((o) => (o.tool ? [o.tool] : []));
  for (const remote of colliding) {
    const index = diagnostics.findIndex((d) => d.remote === remote);
    diagnostics[index] = {
      remote,
      code: A2aDiagnosticCode.NAME_COLLISION,
      message: `provider name ${providerNameFor(a2aToolName(remote))} is shared with another remote; both are left out`,
    };
  }
  const statuses = entries.map(([name, remote], i): RemoteStatus => {
    const diagnostic = diagnostics[i] as A2aDiagnostic;
    const streaming = outcomes[i]?.streaming;
    return {
      remote: name,
      tool: a2aToolName(name),
      admitted: diagnostic.code === A2aDiagnosticCode.ADMITTED,
      cardUrl: remote.card_url,
      endpoint: remote.endpoint,
      card: diagnostic.code === A2aDiagnosticCode.ADMITTED ? "admitted" : diagnostic.code,
      ...(streaming !== undefined ? { streaming } : {}),
    };
  });
  return {
    providers: entries.length > 0 ? [{ id: "a2a", tools: () => tools, statuses }] : [],
    diagnostics,
    statuses,
    catalogDiagnostics: () =>
      diagnostics
        .filter((d) => d.code !== A2aDiagnosticCode.ADMITTED)
        .map((d) => ({
          source: `a2a/${d.remote}`,
          code: d.code,
          message: d.message,
        })),
  };
}

interface Admission {
  readonly remote: string;
  readonly diagnostic: A2aDiagnostic;
  readonly tool?: ReturnType<typeof createRemoteTool>;
  readonly streaming?: boolean;
}

async function admitRemote(
  name: string,
  remote: A2aRemoteConfig,
  config: A2aRemotesConfig,
): Promise<Admission> {
  const out = (code: A2aDiagnosticCode, message: string): Admission => ({
    remote: name,
    diagnostic: { remote: name, code, message },
  });
  const loopback = remote.allow_loopback_http === true;
  const card = checkRemoteUrl("card_url", remote.card_url, loopback);
  if (!card.ok) return out(A2aDiagnosticCode.REMOTE_CONFIG, card.problem);
  const endpoint = checkRemoteUrl("endpoint", remote.endpoint, loopback);
  if (!endpoint.ok) return out(A2aDiagnosticCode.REMOTE_CONFIG, endpoint.problem);
  for (const [key, url] of [
    ["card_url", card.href],
    ["endpoint", endpoint.href],
  ] as const) {
    const decision = evaluateAuthority(config.layers ?? [], [{ dimension: "net", url }]);
    if (decision.verdict !== "allow")
      return out(
        A2aDiagnosticCode.REMOTE_DENIED,
        `not contacted: ${key} denied by ${decision.layer}/${decision.rule}: ${decision.reason}`,
      );
  }
  let bearer: string | undefined;
  if (remote.bearer !== undefined) {
    const resolved = config.credentials.resolve(remote.bearer, {
      consumer: "a2a.bearer",
      destination: endpoint.href,
    });
    if (!resolved.ok)
      return out(
        A2aDiagnosticCode.CREDENTIAL,
        `bearer credential ${remote.bearer}: ${resolved.code}: ${resolved.message}`,
      );
    bearer = resolved.value;
  }
  const fetched = await fetchCard({
    cardUrl: card.href,
    endpoint: endpoint.href,
    timeoutMs: remote.card_timeout_ms ?? A2A_DEFAULTS.cardTimeoutMs,
    maxBytes: remote.max_card_bytes ?? A2A_DEFAULTS.maxCardBytes,
    maxDescriptionChars: A2A_DEFAULTS.maxDescriptionChars,
    ...(config.signal ? { signal: config.signal } : {}),
  });
  if (!fetched.ok) return out(fetched.code, fetched.message);
  const client = await createClient(fetched.facts.card, endpoint.href, {
    endpoint: endpoint.href,
    maxMessageBytes: remote.max_event_bytes ?? A2A_DEFAULTS.maxEventBytes,
    ...(bearer !== undefined ? { bearer } : {}),
  });
  const tool = createRemoteTool({
    remote: name,
    endpoint: endpoint.href,
    cardUrl: card.href,
    risk: remote.risk ?? "medium",
    facts: fetched.facts,
    call: {
      remote: name,
      client,
      streaming: fetched.facts.streaming,
      bounds: {
        operationTimeoutMs: remote.operation_timeout_ms ?? A2A_DEFAULTS.operationTimeoutMs,
        cancelTimeoutMs: remote.cancel_timeout_ms ?? A2A_DEFAULTS.cancelTimeoutMs,
        pollIntervalMs: remote.poll_interval_ms ?? A2A_DEFAULTS.pollIntervalMs,
        maxEvents: remote.max_events ?? A2A_DEFAULTS.maxEvents,
        maxArtifactBytes: remote.max_artifact_bytes ?? A2A_DEFAULTS.maxArtifactBytes,
      },
    },
  });
  return {
    remote: name,
    tool,
    streaming: fetched.facts.streaming,
    diagnostic: {
      remote: name,
      code: A2aDiagnosticCode.ADMITTED,
      message: `card ${card.href} lists ${endpoint.href} (JSON-RPC 1.0)${fetched.facts.streaming ? ", streaming" : ", polling"}`,
    },
  };
}

/** The SDK client bound to exactly the configured interface, every request through the guard. */
async function createClient(
  card: AgentCard,
  endpoint: string,
  guard: Parameters<typeof guardedFetch>[0],
): Promise<Client> {
  const match = card.supportedInterfaces.find((i) => new URL(i.url).href === endpoint);
  const only: AgentCard = { ...card, supportedInterfaces: match ? [{ ...match, url: endpoint }] : [] };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: guardedFetch(guard) })],
  });
  return factory.createFromAgentCard(only);
}
