import {
  type AuthorityLayer,
  type CredentialResolver,
  createCatalog,
  createKernel,
  MemoryAuditSink,
  MemoryEventSink,
  type Session,
  type ToolProvider,
} from "@pablo/kernel";
import type { A2aRemoteConfig } from "../options-schema.js";
import { type A2aRemotes, openA2aRemotes } from "../remotes.js";

/** An in-memory resolver holding named values, each for one consumer and destination. */
export function credentialsOf(
  entries: Record<string, { consumer: string; destination: string; value: string }>,
): CredentialResolver {
  const resolved: string[] = [];
  return {
    resolve(name, use) {
      const entry = entries[name];
      if (!entry) return { ok: false, code: "CREDENTIAL_UNKNOWN", message: `no credential ${name}` };
      if (entry.consumer !== use.consumer || entry.destination !== use.destination)
        return {
          ok: false,
          code: "CREDENTIAL_SCOPE",
          message: `credential ${name} is not for ${use.consumer} ${use.destination}`,
        };
      resolved.push(entry.value);
      return { ok: true, value: entry.value };
    },
    resolvedValues: () => resolved,
  } as CredentialResolver;
}

export interface RemoteSession {
  readonly remotes: A2aRemotes;
  readonly session: Session;
  readonly events: MemoryEventSink;
  readonly audit: MemoryAuditSink;
}

/** Admits the remotes, then opens a real kernel session over their tools (auto permission). */
export async function remoteSession(
  remotes: Record<string, A2aRemoteConfig>,
  options: { credentials?: CredentialResolver; layers?: AuthorityLayer[]; signal?: AbortSignal } = {},
): Promise<RemoteSession> {
  const opened = await openA2aRemotes({
    remotes,
    credentials: options.credentials ?? credentialsOf({}),
    ...(options.layers ? { layers: options.layers } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const events = new MemoryEventSink();
  const audit = new MemoryAuditSink();
  const kernel = createKernel({ audit, events });
  const tools = (await Promise.all(opened.providers.map((p: ToolProvider) => p.tools()))).flat();
  const session = kernel.openSession({
    catalog: createCatalog(tools),
    layers: options.layers ?? [],
    mode: "agent",
    permission: { mode: "auto" },
  });
  return { remotes: opened, session, events, audit };
}

/** A loopback remote entry for a test server. */
export function loopbackRemote(
  server: { rpc: string; cardUrl: string },
  extra: Partial<A2aRemoteConfig> = {},
): A2aRemoteConfig {
  return { card_url: server.cardUrl, endpoint: server.rpc, allow_loopback_http: true, ...extra };
}
