import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { CallOutcome, CatalogEntry } from "@pablo/kernel";

const OPEN_WORLD_EFFECTS = new Set(["net", "mcp", "a2a", "child"]);

/**
 * How a visible catalog tool is offered to MCP clients: its provider name, description and the
 * exact closed input schema the kernel validates against. Annotations are derived from what the
 * tool declares (hints for the client; the kernel decides regardless).
 */
export function toMcpTool(entry: CatalogEntry): Tool {
  const definition = entry.definition;
  return {
    name: entry.providerName,
    title: definition.summary,
    description: definition.description,
    inputSchema: entry.inputJsonSchema as Tool["inputSchema"],
    annotations: {
      readOnlyHint: !definition.mutates,
      destructiveHint: definition.mutates,
      openWorldHint: definition.effects.some((e) => OPEN_WORLD_EFFECTS.has(e)),
    },
  };
}

/**
 * A kernel outcome as an MCP result: one text block holding the result object exactly as a model
 * receives it (serialized and bounded by the kernel), with `isError` for failures. Denials,
 * invalid arguments and unknown tools are results too, never protocol errors.
 */
export function toCallToolResult(outcome: CallOutcome): CallToolResult {
  return {
    content: [{ type: "text", text: outcome.serialized }],
    ...(outcome.result.ok ? {} : { isError: true }),
  };
}
