export type { Access, Dimension, NameDimension, PathDimension, RootKind } from "./access.js";
export { DIMENSIONS, describeAccess } from "./access.js";
export type { AuditDecision, AuditLayerHash, AuditRecord, AuditSink, AuditSubject } from "./audit.js";
export { MemoryAuditSink } from "./audit.js";
export type {
  AuditFilter,
  AuditStore,
  AuditStoreOptions,
  ChainHead,
  ChainProblem,
  ChainReport,
  LogEntry,
  StoredAuditRecord,
} from "./audit-chain.js";
export {
  catalogHash,
  chainRecord,
  GENESIS_HASH,
  layerHashes,
  matchesFilter,
  recordHash,
  verifyChain,
} from "./audit-chain.js";
export type { Decision } from "./authority.js";
export { DEFAULT_RULE, defineLayer, evaluateAuthority, evaluateInLayer, layerRules } from "./authority.js";
export { boundResult, MIN_RESULT_BOUND } from "./bound.js";
export { onAbortOf } from "./call-abort.js";
export { CancelledError } from "./cancellation.js";
export type { Catalog, CatalogDiagnostic, CatalogEntry } from "./catalog.js";
export { CatalogBuilder, createCatalog } from "./catalog.js";
export type { CredentialResolution, CredentialResolver, CredentialUse } from "./credentials.js";
export type {
  ErrorCodeRegistry,
  KernelErrorCode,
  RegisteredErrorCode,
  ToolErrorCode,
  ToolErrorInfo,
} from "./errors.js";
export { AuditErrorCode, CredentialErrorCode, ErrorCode, HostErrorCode, PabloError } from "./errors.js";
export type { EventSink, KernelEvent } from "./events.js";
export { MemoryEventSink } from "./events.js";
export type { JsonObject, JsonValue } from "./json.js";
export { canonicalJson, utf8ByteLength } from "./json.js";
export type {
  CallOutcome,
  CallRequest,
  DryRunDecision,
  Kernel,
  KernelOptions,
  SessionOptions,
  ToolVisibility,
} from "./kernel.js";
export { createKernel } from "./kernel.js";
export type { BudgetGrant, BudgetRefusal, Limits } from "./limits.js";
export { Budget, DEFAULT_LIMITS, LimitsSchema, resolveLimits } from "./limits.js";
export { isCanonicalAbsolutePath, matchNet, matchUrl } from "./matchers.js";
export type { ModeVerdict } from "./modes.js";
export { modeGate } from "./modes.js";
export { isValidNativeName, PROVIDER_NAME_PATTERN, providerNameFor, withHashSuffix } from "./names.js";
export {
  type CanonicalUrl,
  checkCanonicalUrl,
  NET_CANONICAL_RULE,
  type UrlCheck,
  UrlCode,
} from "./net-url.js";
export type {
  ElicitationAnswer,
  ElicitationField,
  ElicitationRequest,
  ElicitationValue,
  PermissionAnswer,
  PermissionBroker,
  PermissionMode,
  PermissionNeed,
  PermissionProfile,
  PermissionRequest,
  PermissionSubject,
} from "./permission.js";
export {
  ElicitationAnswerSchema,
  ElicitationFieldSchema,
  ElicitationRequestSchema,
  ElicitationValueSchema,
  PERMISSION_MODES,
  PERMISSION_TIMEOUT_MS,
  permissionNeed,
} from "./permission.js";
export type {
  AnyRule,
  AuthorityLayer,
  CommandRule,
  DimensionPolicy,
  NameRule,
  PathRule,
  UrlRule,
} from "./policy-schema.js";
export {
  AuthorityLayerSchema,
  CommandPolicy,
  CommandRule as CommandRuleSchema,
  NamePolicy,
  NameRule as NameRuleSchema,
  PathPolicy,
  PathRule as PathRuleSchema,
  UrlPolicy,
  UrlRule as UrlRuleSchema,
} from "./policy-schema.js";
export { REDACTED, redactedPreview, redactText, redactValue } from "./redact.js";
export { type Redecision, redecide } from "./redecide.js";
export type { SectionError, SectionResult } from "./resolve-section.js";
export { resolveSection } from "./resolve-section.js";
export type { SchemaIssue, Validator } from "./schema.js";
export { compileValidator, findOpenObject, toJsonSchema } from "./schema.js";
export { Session } from "./session.js";
export { staticAccesses } from "./stages.js";
export { StringRecord } from "./string-record.js";
export type {
  AnyToolDefinition,
  AuditNotes,
  Effect,
  OperatingMode,
  PlannedAccesses,
  Risk,
  StateKey,
  ToolCategory,
  ToolContext,
  ToolDefinition,
  ToolFailure,
  ToolMetadata,
  ToolProgress,
  ToolProvider,
  ToolResult,
  ToolSuccess,
  TruncationInfo,
} from "./tool.js";
export { defineTool, fail, isDeferred, ok, stateKey } from "./tool.js";
