import type { Session } from "@pablo/kernel";
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

/** Cuts text to `max` characters, saying how much was left out. */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}
