/** What one scripted model response says: text, then tool calls, then why it stopped. */
export interface ScriptedTurn {
  readonly text?: string;
  /** `input` is sent as JSON; a string is sent as the raw argument text, valid JSON or not. */
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Why the response ends (default: `tool` when there are tool calls, else `end`). */
  readonly stop?: "end" | "tool" | "refusal" | "max-tokens";
  /** Characters per streamed delta (default 7), so text and arguments arrive in pieces. */
  readonly chunk?: number;
}

export interface ScriptedToolCall {
  readonly id?: string;
  readonly name: string;
  readonly input: unknown;
}

/** The argument text a scripted call streams. */
export function inputText(call: ScriptedToolCall): string {
  return typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {});
}

/** Splits text into pieces of `size` characters, never splitting a surrogate pair. */
export function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}
