import type { PermissionBroker, Session } from "@pablo/kernel";
import type { AgentRunResult } from "../loop/events.js";

/** Something that runs one prompt to completion in a session. */
export interface NestedAgent {
  prompt(text: string, options: { readonly signal: AbortSignal }): Promise<AgentRunResult>;
}

/**
 * Makes the loop of a delegate or child: the same model and listener as the root, its own
 * session, its own name (`task:NAME`, `child:ID`), no control tools. Supplied by the root loop.
 */
export type SpawnAgent = (session: Session, agent: string, instructions: string | undefined) => NestedAgent;

/**
 * How a host runs supervised children instead of the root loop's in-memory agents (the CLI drives
 * each child as an ACP session in-process). The supervisor still opens the child's session, so
 * the root policy narrows it exactly as before; the host only runs the prompt in it.
 */
export interface ChildHost {
  /** Makes the child's agent over the session the supervisor opened for it. */
  readonly spawn: SpawnAgent;
  /**
   * The broker the child's session asks instead of the root kernel's (which it must reach in the
   * end, or deny). Absent: the root kernel's broker, or none, as for the root.
   */
  readonly broker?: PermissionBroker;
}

/** Cuts text to `max` characters, saying how much was left out. */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}
