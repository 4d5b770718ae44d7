export type { BindingPath, Bindings } from "./bindings.js";
export { BindingPathSchema, isBindingPath, parseBindings, resolveBindingPath } from "./bindings.js";
export type { CredentialReference } from "./credentials.js";
export { checkCredentialReferences, createCredentialResolver } from "./credentials.js";
export type { ConfigError, ConfigResult } from "./errors.js";
export { ConfigErrorCode, formatConfigError } from "./errors.js";
export type { CliFlags, JsonPolicy } from "./layers.js";
export { deploymentLayer, flagsLayer, JsonPolicySchema, loadJsonPolicy } from "./layers.js";
export type { Deployment, LoadOptions } from "./load.js";
export { loadDeploymentFile, parseDeployment, section } from "./load.js";
export { locateKey } from "./locate.js";
export type { PolicyCheckInput, PolicyFinding, PolicyFindingKind } from "./policy-check.js";
export { checkPolicy } from "./policy-check.js";
export type {
  A2aOptions,
  AuditOptions,
  CredentialConfig,
  LimitsOptions,
  ModesOptions,
  NetworkOptions,
  PermissionOptions,
  PolicyOptions,
} from "./sections.js";
export {
  A2aOptionsSchema,
  AuditOptionsSchema,
  BUILTIN_SECTIONS,
  CredentialSchema,
  deploymentSchema,
  LimitsOptionsSchema,
  ModesOptionsSchema,
  NetworkOptionsSchema,
  PermissionOptionsSchema,
  PolicyOptionsSchema,
} from "./sections.js";
