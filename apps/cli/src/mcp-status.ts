import type { McpAuthorizationState } from "@pablo/mcp";

/** One line per `auth = "oauth"` MCP server, for `pablo tools --explain` and `pablo policy check`. */
export function explainMcpAuthorization(states: readonly McpAuthorizationState[]): string[] {
  return states.map((s) => `mcp server ${s.server} (${s.serverUrl}): ${s.state}: ${s.summary}`);
}
