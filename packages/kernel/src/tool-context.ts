import type { Access } from "./access.js";
import { type Decision, defineLayer, evaluateAuthority } from "./authority.js";
import type { CallAbort } from "./call-abort.js";
import type { CallRequest } from "./kernel.js";
import type { AuthorityLayer } from "./policy-schema.js";
import type { SessionCore } from "./session-core.js";
import type { StateKey, ToolContext, ToolProgress } from "./tool.js";

/**
 * Builds the context one call's tool sees. A plain object of own properties, so tools may
 * destructure or spread it; `signal` is a getter so the call's AbortSignal is only created when
 * something reads it, and `onAbort` hears the same abort without creating it. Everything else
 * reaches back into a {@link ContextHost} made once per session.
 */
export function toolContext(
  core: SessionCore,
  request: CallRequest,
  callId: string,
  abort: CallAbort,
  deadline: number,
): ToolContext {
  const host = core.contextHost;
  return {
    sessionId: core.id,
    turnId: request.turnId ?? core.promptId,
    promptId: core.promptId,
    callId,
    mode: core.mode,
    get signal() {
      return abort.signal;
    },
    onAbort: (listener) => abort.onAbort(listener),
    deadline,
    requester: request.requester ?? core.requester,
    progress: (event) => host.progress(request, callId, event),
    authorize: host.authorize,
    state: host.state,
    narrow: host.narrow,
  };
}

/** What every call's context reaches back into; made once per session, not once per call. */
export interface ContextHost {
  progress(request: CallRequest, callId: string, event: ToolProgress): void;
  authorize(accesses: readonly Access[]): Decision;
  state<T>(key: StateKey<T> | string, init: () => T): T;
  narrow(layer: AuthorityLayer): void;
}

export function createContextHost(core: SessionCore): ContextHost {
  return {
    progress: (request, callId, event) => {
      // The host that made the call gets the progress itself; native events get it only with
      // content capture on.
      try {
        request.onProgress?.(event);
      } catch {
        // Contract: a progress listener does not throw.
      }
      const bytes = JSON.stringify(event.data)?.length ?? 0;
      core.telemetry.emit({
        type: "tool.progress",
        at: core.now(),
        sessionId: core.id,
        callId,
        tool: request.tool,
        kind: event.kind,
        bytes,
        ...(core.telemetry.captureContent ? { data: event.data } : {}),
      });
    },
    authorize: (accesses) => evaluateAuthority(core.layers, accesses),
    state: (key, init) => core.state.get(key, init),
    narrow: (layer) => core.narrow(defineLayer(layer)),
  };
}

/**
 * Per-session storage for tool packages, one slot per key. The first `get` of a key runs its
 * `init`; the slot then holds that value for the rest of the session.
 */
export class SessionState {
  readonly #slots = new Map<string, { readonly value: unknown }>();

  get<T>(key: StateKey<T> | string, init: () => T): T {
    const slot = this.#slots.get(key);
    if (slot) {
      // The one unchecked step: a key's first `init` fixed its type, and every later use of that
      // key names the same type (a `StateKey<T>` makes the compiler hold callers to it).
      return slot.value as T;
    }
    const value = init();
    this.#slots.set(key, { value });
    return value;
  }
}
