import { type A2aOptions, openA2aRemotes, type RemoteStatus } from "@pablo/a2a";
import type { AuthorityLayer, CatalogDiagnostic, CredentialResolver, ToolProvider } from "@pablo/kernel";

export interface OpenedA2a {
  readonly providers: ToolProvider[];
  /** Remotes left out, and why (card status, denial, credential), for `--explain` and `policy check`. */
  diagnostics(): CatalogDiagnostic[];
  /** Every configured remote with its card status, admitted ones included. */
  readonly statuses: readonly RemoteStatus[];
  /** Whether any remote was admitted: then `child_handoff` must be offered to promote artifacts. */
  readonly handoff: boolean;
}

/**
 * Admits the deployment's A2A remotes for one task. A remote the task's layers deny (the
 * locked-production preset denies the network by default) is never contacted; a card that fails
 * its checks leaves that remote out with a diagnostic. Never throws for remote content.
 */
export async function openA2a(
  section: A2aOptions | undefined,
  context: { credentials: CredentialResolver; layers: readonly AuthorityLayer[]; signal?: AbortSignal },
): Promise<OpenedA2a> {
  const remotes = section?.remotes ?? {};
  if (Object.keys(remotes).length === 0)
    return { providers: [], diagnostics: () => [], statuses: [], handoff: false };
  const opened = await openA2aRemotes({
    remotes,
    credentials: context.credentials,
    layers: context.layers,
    ...(context.signal ? { signal: context.signal } : {}),
  });
  return {
    providers: [...opened.providers],
    diagnostics: () => opened.catalogDiagnostics(),
    statuses: opened.statuses,
    handoff: opened.statuses.some((s) => s.admitted),
  };
}
