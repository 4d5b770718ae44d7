import {
  type AuthorityLayer,
  CatalogBuilder,
  type CatalogDiagnostic,
  createKernel,
  type EventSink,
  type KernelOptions,
  MemoryAuditSink,
  type Session,
} from "@pablo/kernel";
import type { McpCatalog } from "../catalog.js";

export interface TestSession {
  readonly session: Session;
  readonly audit: MemoryAuditSink;
  readonly catalogDiagnostics: CatalogDiagnostic[];
}

/** A real kernel session over an MCP catalog's providers, in `auto` permission mode. */
export async function sessionOver(
  mcp: McpCatalog,
  options: { layers?: AuthorityLayer[]; events?: EventSink; kernel?: Partial<KernelOptions> } = {},
): Promise<TestSession> {
  const builder = new CatalogBuilder();
  const catalogDiagnostics = await builder.addProviders(mcp.providers);
  const audit = new MemoryAuditSink();
  const kernel = createKernel({
    audit,
    ...(options.events ? { events: options.events } : {}),
    ...(options.kernel ?? {}),
  });
  const session = kernel.openSession({
    catalog: builder.build(),
    permission: { mode: "auto" },
    ...(options.layers ? { layers: options.layers } : {}),
  });
  return { session, audit, catalogDiagnostics };
}

/** The text blocks of a successful MCP tool result, joined. */
export function textOf(result: { ok: boolean; data?: unknown }): string {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return ((result.data as { text: string[] }).text ?? []).join("");
}
