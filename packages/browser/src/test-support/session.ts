import {
  type AuthorityLayer,
  createCatalog,
  createKernel,
  MemoryAuditSink,
  type Session,
  type ToolDefinition,
} from "@pablo/kernel";

/** A real kernel session over the given tools, permission mode auto. */
export function sessionFor(
  tools: readonly ToolDefinition[],
  layers: readonly AuthorityLayer[] = [],
): { session: Session; audit: MemoryAuditSink } {
  const audit = new MemoryAuditSink();
  const kernel = createKernel({ audit });
  const session = kernel.openSession({
    catalog: createCatalog([...tools]),
    permission: { mode: "auto" },
    layers,
  });
  return { session, audit };
}
