import type { AgentMessage } from "../model/types.js";

/** Upper bound on the summary a compaction keeps, in characters. */
export const COMPACT_SUMMARY_CHARS = 48 * 1024;
const TEXT_CHARS = 600;
const ARGS_CHARS = 200;
const OUTPUT_CHARS = 300;

/**
 * Starts a new context window: the conversation becomes one user message with every user prompt
 * and a bounded, deterministic summary of what happened (assistant text, each call with a short
 * argument and result preview). No model is asked to summarize, so a compaction costs no call
 * and cannot be steered by tool output. The newest entries win when the summary is over bound.
 */
export function compactMessages(messages: readonly AgentMessage[]): AgentMessage[] {
  const prompts: string[] = [];
  const entries: string[] = [];
  const results = new Map<string, { output: string; isError: boolean }>();
  for (const message of messages) {
    if (message.role === "tool") for (const r of message.results) results.set(r.id, r);
  }
  for (const message of messages) {
    if (message.role === "user") {
      prompts.push(message.content);
      continue;
    }
    if (message.role !== "assistant") continue;
    if (message.text.trim() !== "") entries.push(`assistant: ${clip(message.text, TEXT_CHARS)}`);
    for (const call of message.toolCalls) {
      const result = results.get(call.id);
      const outcome = result
        ? `${result.isError ? "failed" : "ok"}: ${clip(result.output, OUTPUT_CHARS)}`
        : "no result";
      entries.push(`call ${call.name}(${clip(call.input, ARGS_CHARS)}) -> ${outcome}`);
    }
  }
  const kept: string[] = [];
  let size = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as string;
    if (size + entry.length + 1 > COMPACT_SUMMARY_CHARS) {
      kept.unshift(`(${i + 1} earlier entries omitted)`);
      break;
    }
    kept.unshift(entry);
    size += entry.length + 1;
  }
  const original =
    prompts.length === 1
      ? (prompts[0] as string)
      : prompts.map((p, i) => `Prompt ${i + 1}:\n${p}`).join("\n\n");
  const content = [
    original,
    "",
    "<context-summary>",
    "The earlier context window was compacted. What happened so far, oldest first:",
    ...kept,
    "</context-summary>",
    "Continue the task from here. Read files again before changing them: revisions may have changed.",
  ].join("\n");
  return [{ role: "user", content }];
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
