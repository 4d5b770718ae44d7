export type { ChildConfig, ChildOptions } from "./children/child-config.js";
export { DEFAULT_MAX_CHILDREN, resolveChildConfig } from "./children/child-config.js";
export type { ChildHost, NestedAgent, SpawnAgent } from "./children/nested.js";
export type { RetainedPromoter } from "./children/retained.js";
export { registerHandoffSource } from "./children/retained.js";
export type { ResolvedSubagent, SubagentDefinition, SubagentDiagnostic } from "./children/subagents.js";
export {
  ASSIGNABLE_TOOLS,
  delegateAuthority,
  delegateLayer,
  openDelegateSession,
  resolveSubagents,
  SubagentDefinitionSchema,
} from "./children/subagents.js";
export type { AgentOptions as AgentDeploymentOptions } from "./control/agent-options.js";
export { AgentOptionsSchema, parseAgentOptions } from "./control/agent-options.js";
export type {
  AgentProviderOptions,
  AgentToolProvider,
  ControlToolOptions,
} from "./control/agent-provider.js";
export {
  agentProviderFromOptions,
  createAgentProvider,
  createControlTools,
  findAgentProvider,
} from "./control/agent-provider.js";
export { AgentControlHub } from "./control/hub.js";
export { AgentErrorCode, ControlToolName, EXCLUSIVE_TOOLS, SubagentCode } from "./control/names.js";
export type {
  AgentRuntime,
  ApprovalAnswer,
  ApprovalRequest,
  Question,
  QuestionPort,
} from "./control/ports.js";
export type { AgentOptions } from "./loop/agent.js";
export { Agent, runAgent } from "./loop/agent.js";
export { compactMessages } from "./loop/compact.js";
export type {
  AgentEvent,
  AgentEventListener,
  AgentRunResult,
  BudgetUsage,
  CallRecord,
  ChildState,
  Denial,
  FileChange,
  RunStatus,
  SubmittedArtifact,
} from "./loop/events.js";
export { systemPrompt } from "./loop/system-prompt.js";
export type { CreateModelOptions, CreateModelResult, ModelCredentials } from "./model/create-model.js";
export { createModel } from "./model/create-model.js";
export type { RecordingModel } from "./model/recording-model.js";
export { recordingModel } from "./model/recording-model.js";
export { REPLAY_FORMAT, ReplayFile, ReplayResponse, ReplayToolCall } from "./model/replay-format.js";
export { loadReplay, parseReplay, replayModel } from "./model/replay-model.js";
export type { RetryPolicy } from "./model/retry.js";
export { DEFAULT_RETRY, retryAfterMs } from "./model/retry.js";
export type { SdkModelOptions } from "./model/sdk-model.js";
export { sdkModel } from "./model/sdk-model.js";
export type {
  AgentMessage,
  FinishReason,
  Model,
  ModelEvent,
  ModelRequest,
  ModelTool,
  ModelToolCall,
  TokenUsage,
  ToolResultMessage,
} from "./model/types.js";
export { ModelErrorCode } from "./model/types.js";
export { eventLine, resultLine, summaryLines } from "./report/human-lines.js";
export type { RenderTarget } from "./report/run-renderer.js";
export { RunRenderer } from "./report/run-renderer.js";
