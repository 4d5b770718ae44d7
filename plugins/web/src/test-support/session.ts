import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type AuthorityLayer,
  createCatalog,
  createKernel,
  MemoryAuditSink,
  type PermissionProfile,
  type Session,
} from "@pablo/kernel";
import { loadPlugins, type PluginDiagnostic } from "@pablo/plugins";

export const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** Everything the web plugin asks for: registration, the kernel's `net`, and both capabilities. */
export const WEB_GRANTS = ["agent.tool.register", "net", "net.fetch", "net.search"];

export interface WebSessionOptions {
  readonly options?: Record<string, unknown>;
  readonly grants?: string[];
  readonly layers?: AuthorityLayer[];
  readonly mode?: "agent" | "plan" | "goal";
  readonly permission?: PermissionProfile;
}

/**
 * Loads this package (its built dist, through its package.json manifest) exactly as a
 * distribution would, and opens a kernel session over its tools.
 */
export async function webSession(
  settings: WebSessionOptions = {},
): Promise<{ session: Session; audit: MemoryAuditSink; diagnostics: PluginDiagnostic[] }> {
  const loaded = await loadPlugins(
    [
      {
        name: "web",
        package: packageDir,
        grants: settings.grants ?? WEB_GRANTS,
        options: { allowLoopback: true, ...settings.options },
      },
    ],
    { resolveFrom: packageDir },
  );
  const audit = new MemoryAuditSink();
  const session = createKernel({ audit }).openSession({
    catalog: createCatalog(loaded.tools),
    layers: settings.layers ?? [],
    mode: settings.mode ?? "agent",
    permission: settings.permission ?? { mode: "auto" },
  });
  return { session, audit, diagnostics: loaded.diagnostics };
}
