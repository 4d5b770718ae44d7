import { randomUUID } from "node:crypto";
import { type Access, type Decision, onAbortOf, type ToolContext } from "@pablo/kernel";

/**
 * A tool context for calling `execute` directly, for orderings the kernel cannot provoke on
 * demand (policy changing right before a rename). Everything else goes through a real session.
 */
export function directContext(options: {
  signal?: AbortSignal;
  authorize?: (accesses: readonly Access[]) => Decision;
  promptId?: string;
}): ToolContext {
  const state = new Map<string, unknown>();
  const signal = options.signal ?? new AbortController().signal;
  return {
    sessionId: "direct",
    turnId: "turn",
    promptId: options.promptId ?? "prompt",
    callId: `direct-${randomUUID()}`,
    mode: "agent",
    signal,
    onAbort: onAbortOf(signal),
    deadline: Date.now() + 60_000,
    requester: undefined,
    progress: () => undefined,
    authorize:
      options.authorize ??
      (() => ({ verdict: "allow", layer: "direct", rule: "default", reason: "direct call" })),
    state: <T>(key: string, init: () => T): T => {
      if (!state.has(key)) state.set(key, init());
      return state.get(key) as T;
    },
    narrow: () => {
      throw new Error("the fs tools never narrow their session");
    },
  };
}
