export type { McpCatalog, McpCatalogConfig } from "./catalog.js";
export { openMcpCatalog } from "./catalog.js";
export type { McpDiagnostic } from "./diagnostics.js";
export {
  McpAdmissionCode,
  McpAdmissionError,
  McpDiagnosticCode,
  McpErrorCode,
} from "./diagnostics.js";
export type { McpElicitHandler, McpElicitResult } from "./elicitation.js";
export { ELICITATION_LIMITS, fieldAccepts } from "./elicitation.js";
export { isLoopbackHost } from "./http-transport.js";
export { mcpNativeName, mcpProviderName } from "./names.js";
export type { McpAuthorizationState } from "./oauth/authorization-state.js";
export { logoutMcpServer, mcpAuthorizationStates } from "./oauth/authorization-state.js";
export { McpOAuthCode, McpOAuthError } from "./oauth/codes.js";
export type { LoginOptions, LoginResult } from "./oauth/login.js";
export { loginMcpServer, MAX_AUTHORIZATIONS } from "./oauth/login.js";
export { defaultTokenDir } from "./oauth/token-store.js";
// The option schemas and policy layers, also the light entry `@pablo/mcp/options`.
export * from "./options.js";
export type { SubsetResult } from "./schema-subset.js";
export { boundOutputSchema, closeInputSchema, SCHEMA_SUBSET_LIMITS } from "./schema-subset.js";
export type { ServedCatalog, ServeOptions } from "./serve/serve.js";
export { serveCatalog } from "./serve/serve.js";
export type { ServeBridge, ServeBridgeOptions, ServedCall } from "./serve/serve-bridge.js";
export { createServeBridge } from "./serve/serve-bridge.js";
