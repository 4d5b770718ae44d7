import type { AgentContext, PermissionOption, ToolCallUpdate } from "@agentclientprotocol/sdk";
import type { PermissionAnswer, PermissionBroker, PermissionRequest } from "@pablo/kernel";

/** Where a session's permission cards go: the editor's connection and the card's tool call. */
export interface PermissionChannel {
  readonly client: AgentContext;
  readonly sessionId: string;
  /** The tool call the card is about, as the editor already knows it from `tool_call`. */
  toolCall(request: PermissionRequest): ToolCallUpdate;
}

/** Option IDs of a card; each maps to exactly one kernel answer. */
export const PermissionOptionId = {
  ALLOW_ONCE: "allow-once",
  ALLOW_ALWAYS: "allow-always",
  REJECT: "reject",
} as const;

const ANSWERS: Readonly<Record<string, PermissionAnswer>> = {
  [PermissionOptionId.ALLOW_ONCE]: "allow-once",
  [PermissionOptionId.ALLOW_ALWAYS]: "allow-session",
  [PermissionOptionId.REJECT]: "deny",
};

/**
 * The kernel's permission broker for `pablo acp`: each request becomes
 * `session/request_permission` on the connection of the session that asked. Allow always is the
 * kernel's allow-session (this tool name, this ACP session only). The kernel owns the deadline
 * (`[options.permission] timeout_ms`, 120 s by default) and the cancellation: when its signal
 * aborts, the outstanding request is cancelled with `$/cancel_request` and the call is denied at
 * once, without waiting for the editor. An answer that is not one of the offered options, a
 * `cancelled` outcome, a failed request and an unknown session all deny.
 */
export function acpBroker(
  route: (kernelSessionId: string) => PermissionChannel | undefined,
): PermissionBroker {
  return {
    async request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
      const channel = route(request.sessionId);
      if (!channel || signal.aborted) return "deny";
      const denied = new Promise<PermissionAnswer>((resolve) => {
        signal.addEventListener("abort", () => resolve("deny"), { once: true });
      });
      const asked = channel.client
        .request(
          "session/request_permission",
          { sessionId: channel.sessionId, toolCall: channel.toolCall(request), options: optionsFor(request) },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        )
        .then(
          (response): PermissionAnswer =>
            response.outcome.outcome === "selected" ? (ANSWERS[response.outcome.optionId] ?? "deny") : "deny",
          (): PermissionAnswer => "deny",
        );
      return Promise.race([asked, denied]);
    },
  };
}

/** A plan or goal approval has no "always": each submission is approved on its own. */
export function optionsFor(
  request: Pick<PermissionRequest, "category" | "providerName">,
): PermissionOption[] {
  if (request.category === "plan-submit" || request.category === "goal-submit") {
    const what = request.category === "plan-submit" ? "plan" : "goal";
    return [
      { optionId: PermissionOptionId.ALLOW_ONCE, name: `Approve the ${what}`, kind: "allow_once" },
      { optionId: PermissionOptionId.REJECT, name: `Reject the ${what}`, kind: "reject_once" },
    ];
  }
  return [
    { optionId: PermissionOptionId.ALLOW_ONCE, name: "Allow once", kind: "allow_once" },
    {
      optionId: PermissionOptionId.ALLOW_ALWAYS,
      name: `Always allow ${request.providerName} in this session`,
      kind: "allow_always",
    },
    { optionId: PermissionOptionId.REJECT, name: "Reject", kind: "reject_once" },
  ];
}
