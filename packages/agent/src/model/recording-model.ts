import { REPLAY_FORMAT, type ReplayFile, type ReplayResponse } from "./replay-format.js";
import type { Model } from "./types.js";

/** A model that passes everything through and keeps what it answered, as a replay transcript. */
export interface RecordingModel extends Model {
  transcript(): ReplayFile;
}

/**
 * Wraps a model to record its responses. The transcript holds what the model said (text, calls,
 * finish or error), never requests, tool results or credentials.
 */
export function recordingModel(inner: Model): RecordingModel {
  const byAgent = new Map<string, ReplayResponse[]>();
  return {
    id: inner.id,
    async *stream(request, signal) {
      let text = "";
      const toolCalls: NonNullable<ReplayResponse["toolCalls"]>[number][] = [];
      let ending: Pick<ReplayResponse, "finish" | "error"> = { finish: "incomplete" };
      // Recorded in `finally`: the loop stops reading at the finish event, which ends this generator early.
      try {
        for await (const event of inner.stream(request, signal)) {
          if (event.type === "text") text += event.text;
          else if (event.type === "tool-call")
            toolCalls.push({ id: event.call.id, name: event.call.name, input: inputOf(event.call.input) });
          else if (event.type === "finish") ending = { finish: event.reason };
          else if (event.type === "error")
            ending = {
              error: {
                code: event.code,
                message: event.message,
                ...(event.status !== undefined ? { status: event.status } : {}),
              },
            };
          yield event;
        }
      } finally {
        const list = byAgent.get(request.agent) ?? [];
        list.push({ ...(text ? { text } : {}), ...(toolCalls.length > 0 ? { toolCalls } : {}), ...ending });
        byAgent.set(request.agent, list);
      }
    },
    transcript() {
      const agents = Object.fromEntries([...byAgent].filter(([agent]) => agent !== "root"));
      return {
        format: REPLAY_FORMAT,
        model: inner.id,
        responses: byAgent.get("root") ?? [],
        ...(Object.keys(agents).length > 0 ? { agents } : {}),
      };
    },
  };
}

function inputOf(text: string): Record<string, unknown> | string {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : text;
  } catch {
    return text;
  }
}
