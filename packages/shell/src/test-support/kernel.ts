import {
  type AuthorityLayer,
  createCatalog,
  createKernel,
  MemoryAuditSink,
  MemoryEventSink,
  type Session,
  type ToolDefinition,
} from "@pablo/kernel";

export interface TestSession {
  readonly session: Session;
  readonly audit: MemoryAuditSink;
  readonly events: MemoryEventSink;
}

/** A kernel session over one tool, auto permission, content captured in events. */
export function sessionFor(tool: ToolDefinition, layers: readonly AuthorityLayer[] = []): TestSession {
  const audit = new MemoryAuditSink();
  const events = new MemoryEventSink();
  const kernel = createKernel({ audit, events, captureContent: true });
  const session = kernel.openSession({
    catalog: createCatalog([tool]),
    permission: { mode: "auto" },
    layers,
  });
  return { session, audit, events };
}
