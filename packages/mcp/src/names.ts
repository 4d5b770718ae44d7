import { isValidNativeName, withHashSuffix } from "@pablo/kernel";

const MAX_PROVIDER_NAME = 64;
const PLAIN_SERVER = /^[A-Za-z0-9-]+$/;
const PLAIN_TOOL = /^[A-Za-z0-9_-]+$/;

/** The qualified native name of an MCP tool: `mcp/{server}/{tool}`. */
export function mcpNativeName(server: string, tool: string): string {
  return `mcp/${server}/${tool}`;
}

/** Whether an MCP tool name can be part of a native name (printable ASCII, no `/`, bounded). */
export function isUsableToolName(server: string, tool: string): boolean {
  return tool.length > 0 && !tool.includes("/") && isValidNativeName(mcpNativeName(server, tool));
}

/**
 * The provider name a model sees, deterministic and within 64 characters.
 *
 * Plain form `mcp_{server}_{tool}` when the server name has no `_` (so the first `_` after
 * `mcp_` separates server from tool, whatever the tool contains) and the result fits. Every
 * other name takes the hashed form `mcp__{cut}_{8 hex of SHA-256 of the native name}`. The
 * two forms cannot meet: a plain name never starts with `mcp__`, because its server segment is
 * non-empty and has no `_`. Two hashed names meet only if their hashes collide; the catalog
 * leaves both tools out when that happens (see `openMcpCatalog`).
 */
export function mcpProviderName(server: string, tool: string): string {
  const plain = `mcp_${server}_${tool}`;
  if (PLAIN_SERVER.test(server) && PLAIN_TOOL.test(tool) && plain.length <= MAX_PROVIDER_NAME) return plain;
  const base = `mcp__${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
  return withHashSuffix(base, mcpNativeName(server, tool));
}
