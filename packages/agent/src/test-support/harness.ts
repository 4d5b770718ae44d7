import {
  type AuthorityLayer,
  CatalogBuilder,
  createKernel,
  type Limits,
  MemoryAuditSink,
  MemoryEventSink,
  type OperatingMode,
  type PermissionBroker,
  type PermissionProfile,
  type ToolDefinition,
} from "@pablo/kernel";
import { type AgentProviderOptions, createAgentProvider } from "../control/agent-provider.js";
import type { AgentEvent } from "../loop/events.js";
import { fileTools } from "./file-tools.js";

export interface HarnessOptions extends Partial<Omit<AgentProviderOptions, "workspace">> {
  readonly workspace: string;
  readonly tools?: readonly ToolDefinition[];
  readonly layers?: readonly AuthorityLayer[];
  readonly permission?: PermissionProfile;
  readonly mode?: OperatingMode;
  readonly broker?: PermissionBroker;
  readonly limits?: Partial<Limits>;
  readonly deferGlob?: boolean;
}

/** A real kernel and session over the test file tools and the agent provider's tools. */
export async function harness(options: HarnessOptions) {
  const audit = new MemoryAuditSink();
  const kernelEvents = new MemoryEventSink();
  const { workspace, tools, layers, permission, mode, broker, limits, deferGlob, ...providerOptions } =
    options;
  const provider = createAgentProvider({ workspace, ...providerOptions });
  const builder = new CatalogBuilder();
  for (const tool of tools ?? fileTools(workspace, { deferGlob: deferGlob ?? false })) builder.add(tool);
  const diagnostics = await builder.addProviders([provider]);
  if (diagnostics.length > 0) throw new Error(JSON.stringify(diagnostics));
  const kernel = createKernel({
    audit,
    events: kernelEvents,
    ...(broker ? { broker } : {}),
    ...(limits ? { limits } : {}),
  });
  const session = kernel.openSession({
    catalog: builder.build(),
    layers: layers ?? [],
    permission: permission ?? { mode: "auto" },
    mode: mode ?? "agent",
  });
  const events: AgentEvent[] = [];
  return {
    kernel,
    session,
    provider,
    audit,
    kernelEvents,
    events,
    onEvent: (e: AgentEvent) => events.push(e),
  };
}

/** A broker that answers every request with `answer`, recording what it was asked. */
export function answeringBroker(answer: "allow-once" | "allow-session" | "deny") {
  const requests: Parameters<PermissionBroker["request"]>[0][] = [];
  const broker: PermissionBroker = {
    request: async (request) => {
      requests.push(request);
      return answer;
    },
  };
  return { broker, requests };
}

/** A broker that never answers until its signal aborts. */
export function silentBroker() {
  const requests: Parameters<PermissionBroker["request"]>[0][] = [];
  const broker: PermissionBroker = {
    request: (request, signal) =>
      new Promise((resolve) => {
        requests.push(request);
        signal.addEventListener("abort", () => resolve("deny"), { once: true });
      }),
  };
  return { broker, requests };
}
