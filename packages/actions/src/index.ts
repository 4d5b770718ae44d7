export type { BuiltinRedaction, Redactor, RedactorOptions } from "@pablo/shell/redact";
export { createRedactor, MAX_PATTERN_LENGTH, REDACTED } from "@pablo/shell/redact";
export { actionInputSchema, actionTool } from "./action-tool.js";
export type { ActionsProvider } from "./actions-provider.js";
export { createActionsProvider } from "./actions-provider.js";
export type {
  BuiltinHandler,
  BuiltinOutcome,
  BuiltinRunContext,
  BuiltinSuccess,
} from "./builtins/builtin.js";
export { REDIS_COMMANDS } from "./builtins/redis-command.js";
export { BUILTINS } from "./builtins/registry.js";
export { sqlProblem } from "./builtins/sql-check.js";
export type { ActionSpec, BuiltinName, FilterName } from "./catalog-schema.js";
export { ActionSpec as ActionSpecSchema, BUILTIN_NAMES, FILTER_NAMES } from "./catalog-schema.js";
export type { ActionSupport } from "./check-actions.js";
export { checkActions } from "./check-actions.js";
export { ActionsErrorCode } from "./errors.js";
export type { FilteredText, FilterInput } from "./filters.js";
export { applyFilters, filterProblem } from "./filters.js";
export type { CatalogDiagnostic, LoadedCatalog } from "./load-catalog.js";
export { loadCatalog, loadCatalogs } from "./load-catalog.js";
export type { ActionStep, LoadedAction } from "./loaded-action.js";
export { ACTION_LIMITS } from "./loaded-action.js";
export type { ActionsOptions } from "./options.js";
export { ActionsOptionsSchema } from "./options.js";
export type { ProgramCheck } from "./program-check.js";
export { checkProgram } from "./program-check.js";
export { signCatalogText } from "./sign-catalog.js";
export type { SignatureCheck, TrustedKey } from "./signing.js";
export { generateSigningKey, keyIdOf, signAction, trustedKey, verifyAction } from "./signing.js";
