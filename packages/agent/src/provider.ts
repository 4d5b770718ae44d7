// The light entry `@pablo/agent/provider`: the agent's deployment options and the provider of its
// control tools, without the model SDKs (listing a deployment's tools never loads a model client).

export { delegateAuthority } from "./children/subagents.js";
export type { AgentOptions as AgentDeploymentOptions } from "./control/agent-options.js";
export { AgentOptionsSchema, parseAgentOptions } from "./control/agent-options.js";
export type { AgentProviderOptions, AgentToolProvider } from "./control/agent-provider.js";
export { agentProviderFromOptions, findAgentProvider } from "./control/agent-provider.js";
export { SubagentCode } from "./control/names.js";
