export { anthropicEvent, anthropicFrames, anthropicRateLimited, anthropicReply } from "./anthropic-wire.js";
export type { LoopbackHandler, LoopbackReply, LoopbackServer, RecordedRequest } from "./loopback-server.js";
export { startLoopbackServer } from "./loopback-server.js";
export { OPENAI_DONE, openaiChunk, openaiFrames, openaiRateLimited, openaiReply } from "./openai-wire.js";
export type { ScriptedToolCall, ScriptedTurn } from "./scripted-turn.js";
