import type { A2aToolProvider, RemoteStatus } from "@pablo/a2a";
import { type A2aLintFinding, type A2aOptions, lintA2a } from "@pablo/a2a/options";
import type { Deployment } from "@pablo/config";
import type { ToolProvider } from "@pablo/kernel";

/** Every configured remote's status, from a task's providers (the `a2a` provider carries them). */
export function remoteStatuses(providers: readonly ToolProvider[]): readonly RemoteStatus[] {
  const provider = providers.find((p) => p.id === "a2a") as A2aToolProvider | undefined;
  return provider?.statuses ?? [];
}

/** `pablo tools --explain`: one line per configured remote with its card status. */
export function explainRemotes(providers: readonly ToolProvider[]): string[] {
  return remoteStatuses(providers).map(
    (s) =>
      `${s.tool}: ${s.admitted ? `admitted (${s.streaming ? "streaming" : "polling"})` : `left out [${s.card}]`}; card ${s.cardUrl}, endpoint ${s.endpoint}`,
  );
}

/** `pablo policy check`'s A2A findings: plain http off loopback, stray or unused bearers. */
export function a2aPolicyFindings(deployment: Deployment): A2aLintFinding[] {
  return lintA2a(deployment.options["a2a"] as A2aOptions | undefined, deployment.credentials);
}
