import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode as JsonRpcErrorCode,
  McpError,
  type Progress,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { scrubSecrets } from "./credentials.js";
import { HttpResumption } from "./http-resumption.js";
import { McpOAuthCode, McpOAuthError } from "./oauth/codes.js";
import { type AbortSubscription, RequestSignal } from "./request-signal.js";
import type { ResolvedServer } from "./resolved-server.js";
import type { ProcessStdioTransport } from "./stdio-transport.js";
import type { TapTransport } from "./tap-transport.js";
import { RedirectRefused } from "./transport-errors.js";

/** How a server's question was answered; the values given are never kept. */
export type ElicitationAction = "accept" | "decline" | "cancel";

/** How one tool call ended at the protocol level. */
export type CallOutcome =
  | {
      readonly kind: "result";
      readonly result: CallToolResult;
      /** Times the response stream was resumed (GET with Last-Event-ID) before the answer came. */
      readonly resumedStreams?: number;
      /** How each question the server asked while the call ran was answered, in order. */
      readonly elicitations?: readonly ElicitationAction[];
    }
  | { readonly kind: "timeout" }
  | { readonly kind: "cancelled" }
  | { readonly kind: "disconnected"; readonly reason: string }
  | { readonly kind: "unavailable"; readonly reason: string }
  /** The server refused the call's authorization (or no valid token was at hand); it did not run. */
  | { readonly kind: "unauthorized"; readonly message: string }
  | { readonly kind: "protocol-error"; readonly message: string };

export interface CallOptions {
  /** The call's abort (the kernel's `ctx.onAbort`): the SDK then sends `notifications/cancelled`. */
  readonly onAbort: AbortSubscription;
  readonly timeoutMs: number;
  /** Called synchronously, in wire order, for each progress notification of this call. */
  readonly onProgress: (progress: Progress) => void;
}

const MAX_LIST_PAGES = 64;
const TERMINATE_TIMEOUT_MS = 2_000;

/**
 * One live MCP session with one server, for one task. Calls are sent once and never replayed;
 * a connection that ended stays ended (each task opens fresh ones).
 */
export class McpConnection {
  readonly server: ResolvedServer;
  readonly secrets: readonly string[];
  /** Called after a `tools/list_changed` re-list: the new listing, or an error message. */
  onToolsChanged: ((tools: Tool[] | undefined, problem?: string) => void) | undefined;
  /** Called once when the server exits or the connection closes outside `close()`. */
  onEnded: ((reason: string) => void) | undefined;

  readonly #client: Client;
  readonly #tap: TapTransport;
  readonly #stdio: ProcessStdioTransport | undefined;
  readonly #inflight = new Set<(reason: string) => void>();
  /** Per call in flight, the answers to the questions asked meanwhile. */
  readonly #questions = new Set<ElicitationAction[]>();
  #ended: string | undefined;
  #lastError: Error | undefined;
  #closing = false;
  #relist: Promise<void> | undefined;
  #calls = 0;

  constructor(
    server: ResolvedServer,
    client: Client,
    tap: TapTransport,
    stdio: ProcessStdioTransport | undefined,
    secrets: readonly string[],
  ) {
    this.server = server;
    this.#client = client;
    this.#tap = tap;
    this.#stdio = stdio;
    this.secrets = secrets;
    tap.onclose = () => this.#markEnded();
    tap.watchErrors((error) => {
      // Over HTTP a call's own stream is watched by its HttpResumption, which resumes it or ends
      // the call; an error elsewhere (a standalone GET stream, one bad message) ends no call.
      this.#lastError = error;
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#scheduleRelist());
  }

  /** Connects, initializes and lists tools within `startupTimeoutMs`. Throws with a clean message. */
  async start(signal: AbortSignal): Promise<Tool[]> {
    const timeoutMs = this.server.startupTimeoutMs;
    const startup = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    const work = (async () => {
      await this.#client.connect(this.#tap, { signal: startup, timeout: timeoutMs });
      return this.listTools(startup, timeoutMs);
    })();
    const aborted = new Promise<never>((_, reject) => {
      const onAbort = () =>
        reject(new Error(signal.aborted ? "admission was cancelled" : `no answer within ${timeoutMs} ms`));
      if (startup.aborted) onAbort();
      else startup.addEventListener("abort", onAbort, { once: true });
    });
    work.catch(() => undefined);
    try {
      return await Promise.race([work, aborted]);
    } catch (error) {
      throw new Error(this.#startupMessage(error));
    }
  }

  /** Lists every tool (following cursors, bounded). */
  async listTools(signal: AbortSignal, timeoutMs: number): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await this.#client.listTools(cursor === undefined ? {} : { cursor }, {
        signal,
        timeout: timeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined || tools.length > this.server.maxTools) break;
    }
    return tools;
  }

  /**
   * Notes how a question from this server was answered, on every call in flight. MCP does not say
   * over stdio which call a question belongs to; with one call in flight (the usual case) the note
   * is exact, with several each of them carries it.
   */
  noteElicitation(action: ElicitationAction): void {
    for (const answers of this.#questions) answers.push(action);
  }

  /** Sends one `tools/call`. Never retried; a lost connection is reported, not repaired. */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome> {
    if (this.#ended) return { kind: "unavailable", reason: this.#ended };
    if (this.#relist) await this.#relist;
    // Unique within this session, which is all a progress token has to be.
    const token = `pablo-${++this.#calls}`;
    const unwatch = this.#tap.watchProgress(token, options.onProgress);
    const signal = new RequestSignal(options.onAbort);
    let endCall: (reason: string) => void = () => undefined;
    const questions: ElicitationAction[] = [];
    this.#questions.add(questions);
    // Over HTTP: resumes the call's response stream, or ends the call when it cannot be resumed.
    const stream = HttpResumption.of(this.#tap.inner)?.watch(token, (reason) => endCall(this.#scrub(reason)));
    try {
      // One promise settled by whichever comes first, the answer or the end of the connection.
      return await new Promise<CallOutcome>((resolve) => {
        endCall = (reason) => resolve({ kind: "disconnected", reason });
        this.#inflight.add(endCall);
        // `request`, not `callTool`: Pablo validates structured output itself, within its subset.
        this.#client
          .request(
            { method: "tools/call", params: { name, arguments: args, _meta: { progressToken: token } } },
            CallToolResultSchema,
            { signal: signal.forSdk(), timeout: options.timeoutMs },
          )
          .then(
            (result) =>
              resolve({
                kind: "result",
                result: result as CallToolResult,
                ...(stream?.resumptions ? { resumedStreams: stream.resumptions } : {}),
                ...(questions.length > 0 ? { elicitations: questions } : {}),
              }),
            (error: unknown) => resolve(this.#classify(error, signal.aborted)),
          );
      });
    } finally {
      stream?.end();
      signal.dispose();
      unwatch();
      this.#inflight.delete(endCall);
      this.#questions.delete(questions);
    }
  }

  /** Ends the session; for stdio, ends and reaps the process group. Resolves whether that was proven. */
  async close(): Promise<boolean> {
    this.#closing = true;
    if (this.server.transport === "http" && !this.#ended) {
      const transport = this.#tap.inner as { terminateSession?: () => Promise<void> };
      await Promise.race([
        transport.terminateSession?.().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, TERMINATE_TIMEOUT_MS).unref()),
      ]);
    }
    await this.#client.close().catch(() => undefined);
    return this.#stdio ? this.#stdio.closeGroup() : true;
  }

  #classify(error: unknown, aborted: boolean): CallOutcome {
    if (aborted) return { kind: "cancelled" };
    if (error instanceof McpError && error.code === JsonRpcErrorCode.RequestTimeout)
      return { kind: "timeout" };
    if (error instanceof McpError && error.code === JsonRpcErrorCode.ConnectionClosed) {
      return { kind: "disconnected", reason: this.#ended ?? this.#describe(this.#lastError) };
    }
    if (error instanceof McpError) return { kind: "protocol-error", message: this.#scrub(error.message) };
    if (error instanceof McpOAuthError && error.code === McpOAuthCode.UNAUTHORIZED)
      return { kind: "unauthorized", message: this.#scrub(error.message) };
    return { kind: "disconnected", reason: this.#describe(error) };
  }

  #markEnded(): void {
    if (this.#ended) return;
    const exit = this.#stdio?.exit;
    const how = exit
      ? exit.signal
        ? `was killed by ${exit.signal}`
        : `exited with status ${exit.code}`
      : "closed the connection";
    this.#ended = this.#lastError ? this.#describe(this.#lastError) : `the server ${how}`;
    for (const end of [...this.#inflight]) end(this.#ended);
    if (!this.#closing) this.onEnded?.(this.#ended);
  }

  #scheduleRelist(): void {
    if (this.#ended || this.#closing) return;
    const previous = this.#relist ?? Promise.resolve();
    const timeoutMs = this.server.operationTimeoutMs;
    const next = previous.then(async () => {
      try {
        this.onToolsChanged?.(await this.listTools(AbortSignal.timeout(timeoutMs), timeoutMs));
      } catch (error) {
        this.onToolsChanged?.(undefined, this.#describe(error));
      }
    });
    this.#relist = next;
    void next.finally(() => {
      if (this.#relist === next) this.#relist = undefined;
    });
  }

  #startupMessage(error: unknown): string {
    const base =
      this.#lastError instanceof RedirectRefused
        ? this.#describe(this.#lastError)
        : (this.#ended ?? this.#describe(error));
    const tail = this.#stdio?.stderrTail().trim();
    return tail ? `${base}; stderr ends with: ${this.#scrub(tail.slice(-512))}` : base;
  }

  #describe(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error ?? "the connection failed");
    return this.#scrub(message);
  }

  #scrub(text: string): string {
    return scrubSecrets(text, this.secrets);
  }
}
