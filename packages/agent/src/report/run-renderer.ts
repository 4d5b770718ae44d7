import type { EventSink, KernelEvent } from "@pablo/kernel";
import type { AgentEvent, AgentRunResult } from "../loop/events.js";
import { eventLine, summaryLines } from "./human-lines.js";

export interface RenderTarget {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * Shows a run while it works. As text: the root model's answer on stdout as it streams; tool
 * calls with their decision and duration, streamed shell output (the loop's `tool.progress`),
 * retries and mode changes on stderr; then the summary on stderr. As JSON Lines: every loop and kernel event, then a
 * `run.finished` line, all on stdout. Every string passes through the scrubber first.
 */
export class RunRenderer implements EventSink {
  readonly #target: RenderTarget;
  readonly #json: boolean;
  readonly #secrets = new Set<string>();
  readonly #warned = new Set<string>();
  #midLine = false;
  readonly #progressMidLine = new Map<string, boolean>();

  constructor(target: RenderTarget, options: { readonly json: boolean }) {
    this.#target = target;
    this.#json = options.json;
  }

  /** Values never to print (model keys, resolved credentials). */
  addSecrets(values: readonly string[]): void {
    for (const value of values) {
      if (value.length < 4) continue;
      this.#secrets.add(value);
      // In JSON Lines a value appears escaped.
      this.#secrets.add(JSON.stringify(value).slice(1, -1));
    }
  }

  /**
   * Kernel events (the kernel's EventSink): written as JSON Lines with `--json`; as text they add
   * nothing, the loop's events already say it. Contract: never throws.
   */
  emit(event: KernelEvent): void {
    if (this.#json) this.#line({ source: "kernel", ...event });
  }

  /** Loop events (the loop's listener). */
  agent(event: AgentEvent): void {
    if (this.#json) {
      this.#line({ source: "agent", ...event });
      return;
    }
    if (event.type === "model.text") {
      if (event.agent !== "root") return;
      this.#target.stdout(this.#scrub(event.text));
      this.#midLine = !event.text.endsWith("\n");
      return;
    }
    if (event.type === "tool.progress") {
      if (typeof event.data === "string") this.#progress(event.callId, event.data);
      return;
    }
    if (event.type === "tool.result") this.#closeProgress(event.callId);
    if (event.type === "model.warning") {
      // Providers repeat the same warning on every request; once is enough.
      if (this.#warned.has(event.message)) return;
      this.#warned.add(event.message);
    }
    const line = eventLine(event);
    if (line === undefined) return;
    this.#breakStdout();
    this.#target.stderr(`${this.#scrub(line)}\n`);
  }

  /** A line of the run's own (model and mode at the start, errors). */
  note(text: string, fields: Record<string, unknown> = {}): void {
    if (this.#json) this.#line({ source: "run", type: "run.note", message: text, ...fields });
    else this.#target.stderr(`${this.#scrub(text)}\n`);
  }

  finish(result: AgentRunResult, modelId: string, exitCode: number): void {
    if (this.#json) {
      this.#line({ source: "run", type: "run.finished", exitCode, model: modelId, ...result });
      return;
    }
    this.#breakStdout();
    this.#target.stderr(`${this.#scrub(summaryLines(result, modelId).join("\n"))}\n`);
  }

  /** Shell output arrives in pieces; each new line is prefixed so it reads as the call's output. */
  #progress(callId: string, text: string): void {
    let out = "";
    let mid = this.#progressMidLine.get(callId) ?? false;
    for (const piece of text.split(/(?<=\n)/)) {
      out += mid ? piece : `  │ ${piece}`;
      mid = !piece.endsWith("\n");
    }
    this.#progressMidLine.set(callId, mid);
    this.#breakStdout();
    this.#target.stderr(this.#scrub(out));
  }

  #line(value: unknown): void {
    this.#target.stdout(`${this.#scrub(JSON.stringify(value))}\n`);
  }

  /** Ends the model's text line before a progress line interleaves with it. */
  #breakStdout(): void {
    if (!this.#midLine) return;
    this.#target.stdout("\n");
    this.#midLine = false;
  }

  #closeProgress(callId: string): void {
    if (this.#progressMidLine.get(callId)) this.#target.stderr("\n");
    this.#progressMidLine.delete(callId);
  }

  #scrub(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join("[REDACTED]");
    return out;
  }
}
