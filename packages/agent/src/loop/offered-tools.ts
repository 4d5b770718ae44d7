import { type CatalogEntry, isDeferred, type Session } from "@pablo/kernel";
import type { ToolSearch } from "@pablo/tool-search";
import { ControlToolName } from "../control/names.js";
import type { ModelTool } from "../model/types.js";

export interface OfferedTools {
  readonly tools: readonly ModelTool[];
  /** Provider names the model may call this turn. */
  readonly names: ReadonlySet<string>;
  /** Provider names of visible deferred tools not loaded for this turn. */
  readonly notLoaded: ReadonlySet<string>;
  /** The on-demand catalog text for the system prompt. */
  readonly onDemand: string;
}

export interface OfferOptions {
  readonly toolSearch: ToolSearch | undefined;
  /** Whether the loop can serve the control tools (a hub runtime is attached). */
  readonly controls: boolean;
  readonly task: boolean;
  readonly children: boolean;
}

const CHILD_TOOLS: ReadonlySet<string> = new Set([
  ControlToolName.CHILD_START,
  ControlToolName.CHILD_WAIT,
  ControlToolName.CHILD_HANDOFF,
]);

/**
 * The tools of one model turn: what the session may see in its mode and layers, minus deferred
 * tools ToolSearch has not loaded for this prompt, minus control tools this loop cannot serve.
 * Without ToolSearch in the catalog, deferred tools are offered directly (nothing could load them).
 */
export function offeredTools(session: Session, options: OfferOptions): OfferedTools {
  const search = options.toolSearch;
  const searchable = search !== undefined && session.catalog.resolve(search.tool.name) !== undefined;
  const visible = session.visibleTools();
  const turn = searchable ? search.toolsForTurn(session) : visible;
  const served = (entry: CatalogEntry) => {
    if (!entry.name.startsWith("agent.")) return true;
    if (!options.controls) return false;
    if (entry.name === ControlToolName.TASK) return options.task;
    if (CHILD_TOOLS.has(entry.name)) return options.children;
    return true;
  };
  const entries = turn.filter(served);
  const names = new Set(entries.map((e) => e.providerName));
  const notLoaded = new Set(
    visible
      .filter((e) => isDeferred(e.definition, session.mode) && !names.has(e.providerName))
      .map((e) => e.providerName),
  );
  return {
    tools: entries.map((e) => ({
      name: e.providerName,
      description: e.definition.description,
      inputSchema: e.inputJsonSchema,
    })),
    names,
    notLoaded,
    onDemand: searchable ? search.catalogText(session) : "",
  };
}
