// The light entry `@pablo/a2a/options`: what a host needs to validate `[options.a2a]`, list its
// credential references and lint its policy, without loading the A2A SDK or an HTTP server.

export type { A2aOptions, A2aRemoteConfig, A2aServeConfig } from "./options-schema.js";
export { A2A_DEFAULTS, A2aOptionsSchema, A2aRemoteSchema, A2aServeSchema } from "./options-schema.js";
export type { A2aCredentialReference, A2aLintFinding } from "./policy-lint.js";
export { a2aCredentialReferences, lintA2a, SERVE_DESTINATION } from "./policy-lint.js";
