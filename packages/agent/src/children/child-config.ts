import type { AuthorityLayer } from "@pablo/kernel";
import type { ChildHost } from "./nested.js";
import { resolveSubagents } from "./subagents.js";

/** How supervised children run. */
export interface ChildOptions {
  /** Children running at once (default 2); the rest queue FIFO under the root's deadline. */
  readonly maxConcurrent?: number;
  /** Tools a child may call, as for subagents (default Read, Glob, Grep). */
  readonly tools?: "*" | readonly string[];
  readonly instructions?: string | undefined;
  /** Further narrowing stacked under the child tools layer (root policy for children). */
  readonly layers?: readonly AuthorityLayer[];
  /** The read tool a handoff re-checks a file artifact with (default `fs.read`). */
  readonly artifactReader?: string;
  /** Runs each child (default: the root loop's own agent, with the root kernel's broker). */
  readonly host?: ChildHost;
}

export interface ChildConfig {
  readonly maxConcurrent: number;
  readonly grants: readonly string[];
  /** Native tool names a child may call. */
  readonly tools: readonly string[];
  readonly instructions: string | undefined;
  readonly layers: readonly AuthorityLayer[];
  readonly artifactReader: string;
  readonly host?: ChildHost;
}

export const DEFAULT_MAX_CHILDREN = 2;

/** Resolves child options; tool names resolve like a subagent's (unknown ones are dropped). */
export function resolveChildConfig(options: ChildOptions | ChildConfig = {}): ChildConfig {
  if ("grants" in options) return options;
  const { items } = resolveSubagents([
    {
      name: "child",
      description: "child",
      ...(options.tools !== undefined ? { tools: options.tools === "*" ? "*" : [...options.tools] } : {}),
    },
  ]);
  const resolved = items[0];
  return {
    maxConcurrent: Math.max(1, options.maxConcurrent ?? DEFAULT_MAX_CHILDREN),
    grants: resolved?.grants ?? [],
    tools: resolved?.tools ?? [],
    instructions: options.instructions,
    layers: options.layers ?? [],
    artifactReader: options.artifactReader ?? "fs.read",
    ...(options.host ? { host: options.host } : {}),
  };
}
