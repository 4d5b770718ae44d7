import { readFileSync } from "node:fs";
import { compileValidator } from "@pablo/kernel";
import { ReplayFile, type ReplayResponse } from "./replay-format.js";
import { type FinishReason, type Model, ModelErrorCode, type ModelEvent } from "./types.js";

const validator = compileValidator(ReplayFile);

/** Parses a transcript; `error` names the first problem. */
export function parseReplay(text: string): { ok: true; value: ReplayFile } | { ok: false; error: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!validator.check(data)) {
    const first = validator.issues(data, 1)[0];
    return { ok: false, error: `${first?.path ?? "/"} ${first?.message ?? "is invalid"}` };
  }
  return { ok: true, value: data as ReplayFile };
}

/** Reads and parses a transcript file. */
export function loadReplay(path: string): { ok: true; value: ReplayFile } | { ok: false; error: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return {
      ok: false,
      error: `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const parsed = parseReplay(text);
  return parsed.ok ? parsed : { ok: false, error: `${path}: ${parsed.error}` };
}

/**
 * A model that plays a transcript back: each request of an agent takes that agent's next
 * response. A request past the end is a `REPLAY_MISMATCH` error, so a run that diverges from the
 * recording stops instead of inventing answers.
 */
export function replayModel(file: ReplayFile, id = "replay"): Model {
  const next = new Map<string, number>();
  return {
    id,
    async *stream(request, signal) {
      const list = request.agent === "root" ? file.responses : file.agents?.[request.agent];
      const index = next.get(request.agent) ?? 0;
      next.set(request.agent, index + 1);
      const response = list?.[index];
      if (!response) {
        yield {
          type: "error",
          code: ModelErrorCode.REPLAY_MISMATCH,
          message: `the transcript has no response ${index + 1} for ${request.agent}`,
        };
        return;
      }
      for (const event of eventsOf(response, request.agent, index)) {
        if (signal.aborted) return;
        yield event;
      }
    },
  };
}

function eventsOf(response: ReplayResponse, agent: string, index: number): ModelEvent[] {
  const events: ModelEvent[] = [];
  if (response.text) events.push({ type: "text", text: response.text });
  (response.toolCalls ?? []).forEach((call, i) => {
    events.push({
      type: "tool-call",
      call: {
        id: call.id ?? `replay_${agent.replace(/[^A-Za-z0-9_-]/g, "_")}_${index + 1}_${i + 1}`,
        name: call.name,
        input: typeof call.input === "string" ? call.input : JSON.stringify(call.input),
      },
    });
  });
  if (response.error) {
    events.push({
      type: "error",
      code: (response.error.code as ModelErrorCode) ?? ModelErrorCode.MODEL_HTTP_ERROR,
      message: response.error.message,
      ...(response.error.status !== undefined ? { status: response.error.status } : {}),
    });
    return events;
  }
  const reason: FinishReason =
    response.finish ?? ((response.toolCalls?.length ?? 0) > 0 ? "tool-calls" : "stop");
  events.push({ type: "finish", reason });
  return events;
}
