import type { AgentRuntime } from "./ports.js";

/**
 * Connects the control tools (registered in the catalog before any loop exists) to the loop that
 * runs a session. The loop attaches itself for the length of a prompt; a control tool called
 * from a session no loop is running (a `pablo call`, a delegate, a child) finds nothing and fails.
 */
export class AgentControlHub {
  readonly #runtimes = new Map<string, AgentRuntime>();

  /** Attaches a runtime to its session; returns the function that detaches it. */
  attach(runtime: AgentRuntime): () => void {
    const id = runtime.session.id;
    this.#runtimes.set(id, runtime);
    return () => {
      if (this.#runtimes.get(id) === runtime) this.#runtimes.delete(id);
    };
  }

  runtime(sessionId: string): AgentRuntime | undefined {
    return this.#runtimes.get(sessionId);
  }
}
