export { CLEAN_PATH, cleanEnvironment, GIT_HAZARD_OVERRIDES, RUN_MARKER_VARIABLE } from "./clean-env.js";
export { commandAccesses, isCompound } from "./command-accesses.js";
export type {
  ListOperator,
  ParsedCommandLine,
  ParseOptions,
  SimpleCommand,
  UnprovenConstruct,
} from "./command-parser.js";
export { DEFAULT_MAX_COMMAND_LENGTH, parseCommandLine } from "./command-parser.js";
export { commandRulesLayer } from "./command-rules-layer.js";
export type {
  Containment,
  ContainmentKind,
  Launch,
  LaunchSite,
  LocalContainmentOptions,
} from "./containment.js";
export { containmentFor, localContainment, processGroupContainment, UNSHARE_PATHS } from "./containment.js";
export type { EndOutcome, EndRequest } from "./end-processes.js";
export { endProcesses } from "./end-processes.js";
export { ShellOptionsErrorCode } from "./errors.js";
export type { ResolvedShellOptions, ShellCommands, ShellId, ShellOptions } from "./options.js";
export {
  DEFAULT_SHELL_OPTIONS,
  resolveShellOptions,
  ShellCommandsSchema,
  ShellOptionsSchema,
} from "./options.js";
export type { ResolveCwd } from "./plan-call.js";
export type { EndSignal, NamespaceInit, ProcessControl, ProcessInfo, RunIdentity } from "./proc-processes.js";
export { procProcessControl, runNamespace } from "./proc-processes.js";
// The redactor (and re2js with it) is at "@pablo/shell/redact", so importing this entry does not load it.
export type { BuiltinRedaction, Redactor, RedactorOptions } from "./redact.js";
export type { ExecutableResolution } from "./resolve-executable.js";
export { resolveCommandWord } from "./resolve-executable.js";
export type {
  BubblewrapOptions,
  ResolvedSandboxOptions,
  SandboxCapability,
  SandboxKind,
  SandboxOptions,
} from "./sandbox-options.js";
export {
  BubblewrapOptionsSchema,
  BWRAP_PATHS,
  DEFAULT_SYSTEM_PATHS,
  resolveSandboxOptions,
  SandboxOptionsSchema,
  sandboxCapabilities,
} from "./sandbox-options.js";
export type { ShellEntry, ShellLookup } from "./shell-catalog.js";
export { findShell, shellCatalog } from "./shell-catalog.js";
export type { ShellRunArgs } from "./shell-schema.js";
export {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  MIN_TIMEOUT_MS,
} from "./shell-schema.js";
export type { ShellToolConfig } from "./shell-tool.js";
export { createShellTool } from "./shell-tool.js";
export type { TruncateOptions } from "./truncate-output.js";
export { DEFAULT_TRUNCATION, stripAnsi, truncateOutput } from "./truncate-output.js";
