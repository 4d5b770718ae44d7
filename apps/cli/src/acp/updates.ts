import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type {
  PlanEntry,
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolCallUpdate,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type { AgentEvent, Model, ModelToolCall } from "@pablo/agent";
import type { ReviewStore } from "@pablo/fs";
import type { Catalog, CatalogEntry } from "@pablo/kernel";

export interface UpdateMapperOptions {
  readonly catalog: Catalog;
  /** Canonical workspace: relative paths in arguments resolve against it. */
  readonly workspace: string;
  /** The session's review store: diffs come from what the kernel recorded, not from the model. */
  readonly reviews: ReviewStore;
  readonly send: (update: SessionUpdate) => void;
  /** The loop whose text and mode changes this session shows (default `root`). */
  readonly agent?: string;
}

/** Most characters of a call's streamed output shown in its tool call card. */
const MAX_OUTPUT_CHARS = 64 * 1024;

/**
 * Turns the agent's events into `session/update` notifications: the root agent's text as message
 * chunks, every call as `tool_call` (pending, with kind, title, locations and the raw input) and
 * `tool_call_update` (in progress with its output, then completed or failed with the file it saw
 * and, for a workspace change, the diff from the review record), SubmitPlan's Markdown as a
 * `plan`, and mode changes. Arguments are known from the model's own tool calls (see
 * {@link observeToolCalls}); the agent's events do not carry them.
 */
export class UpdateMapper {
  readonly #options: UpdateMapperOptions;
  readonly #args = new Map<string, unknown>();
  readonly #output = new Map<string, string>();
  /** Calls requested and not yet finished: call ID to native tool name. */
  readonly #running = new Map<string, string>();

  constructor(options: UpdateMapperOptions) {
    this.#options = options;
  }

  /** Records a call's arguments as the model sent them, before the loop dispatches it. */
  observe(call: ModelToolCall): void {
    let parsed: unknown = call.input;
    try {
      parsed = JSON.parse(call.input);
    } catch {
      // The kernel refuses invalid JSON with INVALID_ARGUMENT; the card shows the raw text.
    }
    this.#args.set(call.id, parsed);
  }

  /** The calls requested and not finished yet, by call ID, with their native tool names. */
  running(): ReadonlyMap<string, string> {
    return this.#running;
  }

  /** The card a permission request is about: the same call the editor was already shown. */
  toolCall(callId: string, tool: string): ToolCallUpdate {
    const entry = this.#options.catalog.resolve(tool);
    return { toolCallId: callId, ...this.#describe(callId, entry, tool), status: "pending" };
  }

  map(event: AgentEvent): void {
    const send = this.#options.send;
    switch (event.type) {
      case "model.text":
        if (event.agent === (this.#options.agent ?? "root")) {
          send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } });
        }
        return;
      case "tool.requested": {
        const entry = this.#options.catalog.resolve(event.tool);
        this.#running.set(event.callId, entry?.name ?? event.tool);
        send({
          sessionUpdate: "tool_call",
          toolCallId: event.callId,
          ...this.#describe(event.callId, entry, event.tool),
          status: "pending",
        });
        const plan = this.#plan(event.callId, entry);
        if (plan) send({ sessionUpdate: "plan", entries: plan });
        return;
      }
      case "tool.progress": {
        const text = typeof event.data === "string" ? event.data : "";
        const output = `${this.#output.get(event.callId) ?? ""}${text}`.slice(-MAX_OUTPUT_CHARS);
        this.#output.set(event.callId, output);
        send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: "in_progress",
          ...(output ? { content: [textContent(output)] } : {}),
        });
        return;
      }
      case "tool.result": {
        const content: ToolCallContent[] = [];
        const output = this.#output.get(event.callId);
        if (output) content.push(textContent(output));
        if (!event.ok)
          content.push(textContent(`${event.code ?? "TOOL_FAILED"} (${event.layer}/${event.rule})`));
        const diff = event.review ? this.#diff(event.review.id) : undefined;
        if (diff) content.push(diff);
        const locations = event.file ? [{ path: this.#absolute(event.file.path) }] : undefined;
        send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: event.ok ? "completed" : "failed",
          ...(content.length > 0 ? { content } : {}),
          ...(locations ? { locations } : {}),
        });
        this.#args.delete(event.callId);
        this.#output.delete(event.callId);
        this.#running.delete(event.callId);
        return;
      }
      case "mode.changed":
        if (event.agent === (this.#options.agent ?? "root"))
          send({ sessionUpdate: "current_mode_update", currentModeId: event.to });
        return;
      default:
        return;
    }
  }

  #describe(
    callId: string,
    entry: CatalogEntry | undefined,
    tool: string,
  ): { title: string; kind: ToolKind; locations: ToolCallLocation[]; rawInput?: unknown } {
    const args = this.#args.get(callId);
    const target = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
    const path = typeof target["path"] === "string" ? target["path"] : undefined;
    const command = typeof target["command"] === "string" ? target["command"] : undefined;
    const name = entry?.providerName ?? tool;
    const subject =
      command ?? path ?? (typeof target["pattern"] === "string" ? target["pattern"] : undefined);
    return {
      title: subject ? `${name} ${subject.length > 120 ? `${subject.slice(0, 120)}…` : subject}` : name,
      kind: entry ? kindOf(entry) : "other",
      locations: path ? [{ path: this.#absolute(path) }] : [],
      ...(args !== undefined ? { rawInput: args } : {}),
    };
  }

  #absolute(path: string): string {
    return isAbsolute(path) ? path : resolve(this.#options.workspace, path);
  }

  /** The diff the kernel's review record holds: the captured previous bytes and what is there now. */
  #diff(reviewId: string): ToolCallContent | undefined {
    const entry = this.#options.reviews.get(reviewId);
    if (!entry || entry.change.binary) return undefined;
    const beforeFile = join(this.#options.reviews.dir, `${reviewId}.before`);
    const oldText =
      entry.beforeRevision !== null && existsSync(beforeFile) ? readFileSync(beforeFile, "utf8") : null;
    if (entry.beforeRevision !== null && oldText === null) return undefined;
    const newText =
      entry.change.status === "deleted" || !existsSync(entry.target)
        ? ""
        : readFileSync(entry.target, "utf8");
    return { type: "diff", path: entry.target, oldText, newText };
  }

  /** SubmitPlan's Markdown as plan entries: one per list item, all pending until approved. */
  #plan(callId: string, entry: CatalogEntry | undefined): PlanEntry[] | undefined {
    if (entry?.definition.category !== "plan-submit") return undefined;
    const args = this.#args.get(callId) as { markdown?: unknown } | undefined;
    if (typeof args?.markdown !== "string") return undefined;
    const items = args.markdown
      .split("\n")
      .map((line) => /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.+)$/.exec(line)?.[1]?.trim())
      .filter((item): item is string => Boolean(item));
    return items.map((content) => ({ content, priority: "medium", status: "pending" }));
  }
}

/** The ACP kind of a tool, from its declared category and effects (never from its name). */
export function kindOf(entry: CatalogEntry): ToolKind {
  const { category, effects } = entry.definition;
  switch (category) {
    case "write":
      return "edit";
    case "process":
      return "execute";
    case "control":
      return "think";
    case "agent-control":
      // EnterPlanMode / EnterGoalMode have no effect of their own; Task and the child tools do.
      return effects.length === 0 ? "switch_mode" : "other";
    case "plan-submit":
    case "goal-submit":
      return "switch_mode";
    case "read":
      if (effects.includes("net")) return "fetch";
      return entry.inputJsonSchema["properties"] &&
        ("query" in (entry.inputJsonSchema["properties"] as object) ||
          "pattern" in (entry.inputJsonSchema["properties"] as object))
        ? "search"
        : "read";
    default:
      return effects.includes("net") ? "fetch" : "other";
  }
}

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/**
 * A model whose tool calls are shown to `onCall` as they complete, before the loop dispatches
 * them; everything else passes through unchanged.
 */
export function observeToolCalls(model: Model, onCall: (call: ModelToolCall) => void): Model {
  return {
    id: model.id,
    async *stream(request, signal) {
      for await (const event of model.stream(request, signal)) {
        if (event.type === "tool-call") onCall(event.call);
        yield event;
      }
    },
  };
}
