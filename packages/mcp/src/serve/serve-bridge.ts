import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type {
  EventSink,
  KernelEvent,
  PermissionAnswer,
  PermissionBroker,
  PermissionRequest,
} from "@pablo/kernel";

/** What the bridge knows about one MCP `tools/call` in progress. */
export interface ServedCall {
  readonly server: Server;
  readonly requestId: string | number;
  readonly progressToken: string | number | undefined;
  sendProgress(progress: number, message: string): void;
}

/**
 * Connects a kernel to the MCP clients `serveCatalog` serves. Pass `events` and `broker` to
 * `createKernel` (the kernel fixes both when it is created), and the bridge to `serveCatalog`.
 * - `broker`: a permission prompt for a call that came from an MCP client becomes an MCP form
 *   elicitation to that client when it declared the capability; otherwise, and for calls from
 *   anywhere else, `fallback` answers (default: deny, failing closed).
 * - `events`: `tool.progress` events of a served call become `notifications/progress` to the
 *   client that asked for progress; every event is also passed to `downstream`.
 */
export interface ServeBridge {
  readonly events: EventSink;
  readonly broker: PermissionBroker;
  /** @internal Used by `serveCatalog`. */
  register(callId: string, call: ServedCall): () => void;
}

export interface ServeBridgeOptions {
  /** Answers when no MCP client can be asked. Default: deny every request. */
  readonly fallback?: PermissionBroker;
  /** Receives every kernel event as well (an audit or trace sink). Contract: must not throw. */
  readonly downstream?: EventSink;
}

const DENY_ALL: PermissionBroker = { request: async () => "deny" };
const DECISIONS: readonly PermissionAnswer[] = ["allow-once", "allow-session", "deny"];

export function createServeBridge(options: ServeBridgeOptions = {}): ServeBridge {
  const calls = new Map<string, ServedCall>();
  const progressCounts = new Map<string, number>();
  const fallback = options.fallback ?? DENY_ALL;
  return {
    register(callId, call) {
      calls.set(callId, call);
      return () => {
        calls.delete(callId);
        progressCounts.delete(callId);
      };
    },
    events: {
      emit(event: KernelEvent) {
        if (event.type === "tool.progress") {
          const call = calls.get(event.callId);
          if (call && call.progressToken !== undefined) {
            const count = (progressCounts.get(event.callId) ?? 0) + 1;
            progressCounts.set(event.callId, count);
            call.sendProgress(count, event.kind);
          }
        }
        try {
          options.downstream?.emit(event);
        } catch {
          // Contract of sinks: must not throw.
        }
      },
    },
    broker: {
      async request(request, signal) {
        const call = calls.get(request.callId);
        if (!call?.server.getClientCapabilities()?.elicitation?.form)
          return fallback.request(request, signal);
        return elicit(call, request, signal);
      },
    },
  };
}

async function elicit(
  call: ServedCall,
  request: PermissionRequest,
  signal: AbortSignal,
): Promise<PermissionAnswer> {
  const result = await call.server.elicitInput(
    {
      mode: "form",
      message: [
        `Allow ${request.providerName} (${request.risk} risk)?`,
        `Reason: ${request.reason}.`,
        `Arguments: ${request.argsPreview}`,
      ].join("\n"),
      requestedSchema: {
        type: "object",
        properties: {
          decision: {
            type: "string",
            title: "Decision",
            enum: [...DECISIONS],
            description: "allow-once: this call only; allow-session: this tool for the session; deny.",
          },
        },
        required: ["decision"],
      },
    },
    // The kernel's own permission deadline bounds the wait, not the SDK's 60 s default.
    { relatedRequestId: call.requestId, signal, timeout: Math.max(1_000, request.deadline - Date.now()) },
  );
  const decision = result.action === "accept" ? result.content?.["decision"] : undefined;
  return DECISIONS.find((d) => d === decision) ?? "deny";
}
