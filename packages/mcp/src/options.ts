// The light entry `@pablo/mcp/options`: what a host needs to validate `[options.mcp]` and derive
// its policy layers, without loading the MCP SDK (a command that lists tools of a deployment with
// no MCP servers never pays for it).
export type {
  HttpServerConfig,
  McpOptions,
  McpPolicy,
  McpServerConfig,
  StdioServerConfig,
} from "./options-schema.js";
export {
  HttpServerSchema,
  MCP_DEFAULTS,
  McpOptionsSchema,
  McpPolicySchema,
  McpServerSchema,
  StdioServerSchema,
} from "./options-schema.js";
export { mcpPolicyLayers } from "./policy.js";
