import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo, Progress } from "@modelcontextprotocol/sdk/types.js";

type ProgressListener = (progress: Progress) => void;

/**
 * Sits between the SDK client and the real transport and sees every incoming message in wire
 * order. Progress notifications for a watched token are delivered to their listener right here,
 * synchronously, before any later message reaches the SDK. The SDK dispatches notifications on
 * a later microtask but responses at once, so with its own `onprogress` the last notification
 * of a call can arrive after the call settled and be dropped (seen with server-everything).
 * Watched notifications are not passed on, so the SDK never sees a token it does not know.
 */
export class TapTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  readonly inner: Transport;
  readonly #listeners = new Map<string, ProgressListener>();
  readonly #errorListeners = new Set<(error: Error) => void>();

  constructor(inner: Transport) {
    this.inner = inner;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  /** Routes progress with this token to `listener` until the returned function is called. */
  watchProgress(token: string, listener: ProgressListener): () => void {
    this.#listeners.set(token, listener);
    return () => this.#listeners.delete(token);
  }

  /** Observes transport errors (disconnects, oversized messages) without replacing the SDK's handler. */
  watchErrors(listener: (error: Error) => void): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      if (this.#deliverProgress(message)) return;
      this.onmessage?.(message, extra);
    };
    this.inner.onerror = (error) => {
      for (const listener of [...this.#errorListeners]) listener(error);
      this.onerror?.(error);
    };
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  #deliverProgress(message: JSONRPCMessage): boolean {
    if (!("method" in message) || message.method !== "notifications/progress" || "id" in message)
      return false;
    const params = message.params as Record<string, unknown> | undefined;
    const token = params?.["progressToken"];
    const listener = typeof token === "string" ? this.#listeners.get(token) : undefined;
    if (!listener || !params) return false;
    const { progressToken: _token, _meta: _ignored, ...progress } = params;
    try {
      listener(progress as Progress);
    } catch {
      // Contract of listeners: must not throw. One that does must not break the connection.
    }
    return true;
  }
}
