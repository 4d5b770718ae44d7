import { type CatalogEntry, isDeferred, type Session, type ToolDefinition } from "@pablo/kernel";
import type { AttachedSession } from "./attached-session.js";
import { type CatalogTextOptions, onDemandCatalog } from "./catalog-text.js";
import { DeferredToolSet } from "./deferred-set.js";
import { documentOf } from "./document.js";
import { createToolSearchTool, type ToolSearchOutput } from "./tool.js";
import { ToolIndex } from "./tool-index.js";

export interface ToolSearchOptions {
  /** `json` (default): matches as data. `tool_reference`: Anthropic-style `tool_reference` blocks. */
  readonly output?: ToolSearchOutput;
  /** Most tools one search loads (default 5, at most 20). */
  readonly maxResults?: number;
  readonly catalog?: CatalogTextOptions;
}

export type { AttachedSession } from "./attached-session.js";

/**
 * Deferred loading for the sessions of one catalog. Put `tool` in the catalog, `attach` each
 * session once it is opened, then per model turn send `toolsForTurn(session)` with full schemas
 * and `catalogText(session)` in the prompt. Everything is derived from `session.visibleTools()`,
 * so a tool that policy or the mode hides is never listed, found or loaded.
 */
export class ToolSearch {
  readonly tool: ToolDefinition;
  readonly #sessions = new Map<string, AttachedSession>();
  /** Indexes shared by sessions that see the same deferred tools (building one costs ~0.2-0.5 s per 10,000 tools). */
  readonly #indexes = new Map<string, ToolIndex>();
  readonly #options: ToolSearchOptions;

  constructor(options: ToolSearchOptions = {}) {
    this.#options = options;
    this.tool = createToolSearchTool({
      lookup: (sessionId) => this.#sessions.get(sessionId),
      output: options.output ?? "json",
      maxResults: Math.min(20, Math.max(1, options.maxResults ?? 5)),
    });
  }

  /** Registers a session; returns its deferred set. Idempotent. */
  attach(session: Session): DeferredToolSet {
    const existing = this.#sessions.get(session.id);
    if (existing) return existing.set;
    let cached: { mode: string; index: ToolIndex } | undefined;
    const attached: AttachedSession = {
      session,
      set: new DeferredToolSet(),
      index: () => {
        if (cached?.mode !== session.mode) {
          cached = { mode: session.mode, index: this.#indexFor(deferredVisible(session)) };
        }
        return cached.index;
      },
    };
    this.#sessions.set(session.id, attached);
    return attached.set;
  }

  detach(session: Session): void {
    this.#sessions.delete(session.id);
  }

  /**
   * Starts a model turn: tools loaded by earlier turns of this prompt become callable. Returns the
   * tools to send with full schemas: every visible non-deferred tool plus the loaded deferred ones.
   */
  toolsForTurn(session: Session): CatalogEntry[] {
    const loaded = new Set(this.#attached(session).set.beginTurn(session.promptId));
    return session
      .visibleTools()
      .filter((e) => !isDeferred(e.definition, session.mode) || loaded.has(e.providerName));
  }

  /** The bounded on-demand catalog of visible deferred tools not loaded for this prompt. */
  catalogText(session: Session): string {
    const loaded = new Set(this.#attached(session).set.loaded(session.promptId));
    const entries = deferredVisible(session).filter((e) => !loaded.has(e.providerName));
    return onDemandCatalog(entries, {
      ...this.#options.catalog,
      searchToolName: this.tool.providerName ?? "ToolSearch",
    });
  }

  #indexFor(entries: readonly CatalogEntry[]): ToolIndex {
    const key = entries.map((e) => e.definitionHash).join("\n");
    const found = this.#indexes.get(key);
    if (found) return found;
    const index = ToolIndex.build(entries.map(documentOf));
    if (this.#indexes.size >= 8) this.#indexes.delete(this.#indexes.keys().next().value as string);
    this.#indexes.set(key, index);
    return index;
  }

  #attached(session: Session): AttachedSession {
    const attached = this.#sessions.get(session.id);
    if (!attached) throw new Error(`session ${session.id} is not attached to ToolSearch`);
    return attached;
  }
}

/** Shorthand for `new ToolSearch(options)`. */
export function createToolSearch(options: ToolSearchOptions = {}): ToolSearch {
  return new ToolSearch(options);
}

function deferredVisible(session: Session): CatalogEntry[] {
  return session.visibleTools().filter((e) => isDeferred(e.definition, session.mode));
}
