import { type ChildProcess, spawn } from "node:child_process";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type Containment, localContainment } from "@pablo/shell";
import { endProcessGroup } from "./process-group.js";
import { MessageTooLarge, NotJsonRpcOutput } from "./transport-errors.js";

export interface StdioLaunch {
  /** Absolute launcher; spawned without a shell, so no PATH search happens. */
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The complete environment of the child: nothing is inherited. */
  readonly env: Readonly<Record<string, string>>;
  readonly maxMessageBytes: number;
  readonly shutdownTimeoutMs: number;
  /**
   * How the server's descendants are kept from outliving it. Default: @pablo/shell's local
   * containment (a PID namespace where the host allows one, with the host's /proc so the server's
   * `/proc/self` still names its host PID), and inherited descriptors above 2 closed.
   */
  readonly containment?: Containment;
}

/** How the process ended, for messages and diagnostics. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: string | null;
}

const STDERR_TAIL_BYTES = 4096;
const EXIT_DRAIN_MS = 100;
/**
 * Stray lines a server may write to stdout (a banner, a debug print) before the connection is
 * closed as broken. Each one costs a parse and an error event; without a bound, a server that
 * floods junk (`/bin/yes`) kept the process parsing a million lines per event-loop turn.
 */
export const INVALID_LINE_ALLOWANCE = 16;

/**
 * The MCP stdio transport, owning its process: the SDK's `StdioClientTransport` inherits part of
 * the parent's environment and does not put the server in its own process group, so Pablo spawns
 * the process itself and uses the SDK's message framing. The child gets exactly `env`, leads its
 * own process group, starts in its own PID namespace where the host allows one (so nothing it
 * starts outlives it), and `close()` ends and reaps all of it. A message longer than
 * `maxMessageBytes`, or more than {@link INVALID_LINE_ALLOWANCE} lines that are not JSON-RPC
 * messages, is a transport error that closes the connection and stops reading stdout; stdout is
 * paused after each chunk until the next event-loop turn, so a flood cannot starve timers (the
 * startup timeout) or signal handlers. stderr is drained and only its last 4 KiB are kept.
 */
export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #launch: StdioLaunch;
  #child: ChildProcess | undefined;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #stderrTail: Buffer = Buffer.alloc(0);
  #exit: ExitInfo | undefined;
  #closing: Promise<boolean> | undefined;
  #notifiedClose = false;
  #discarding = false;
  #invalidLines = 0;
  #containment: string | undefined;

  constructor(launch: StdioLaunch) {
    this.#launch = launch;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The containment in force once started: `pid-namespace` or `process-group`. */
  get containment(): string | undefined {
    return this.#containment;
  }

  get exit(): ExitInfo | undefined {
    return this.#exit;
  }

  /** The last bytes the server wrote to stderr, for diagnostics. */
  stderrTail(): string {
    return this.#stderrTail.toString("utf8");
  }

  start(): Promise<void> {
    if (this.#child) throw new Error("the stdio transport is already started");
    return new Promise((resolve, reject) => {
      const containment = this.#launch.containment ?? localContainment({ privateProc: false });
      const launch = containment.wrap(
        { executable: this.#launch.command, args: this.#launch.args },
        { cwd: this.#launch.cwd, workspaceWritable: false },
      );
      this.#containment = containment.kind;
      const child = spawn(launch.executable, [...launch.args], {
        cwd: this.#launch.cwd,
        env: { ...this.#launch.env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        detached: true,
        windowsHide: true,
      });
      this.#child = child;
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => resolve());
      child.once("exit", (code, signal) => {
        this.#exit = { code, signal };
        // A descendant holding the pipes open would delay "close" indefinitely; the connection
        // ends with the server process, after a moment for its last output to be read.
        setTimeout(() => this.#closed(), EXIT_DRAIN_MS).unref();
      });
      child.once("close", () => this.#closed());
      child.stdin?.on("error", (error) => this.onerror?.(error));
      const stdout = child.stdout;
      stdout?.on("data", (chunk: Buffer) => {
        this.#onStdout(chunk);
        // libuv reads up to 32 chunks per poll and Node emits each at once: without this pause a
        // fast writer keeps one turn of the event loop busy for as long as it writes.
        if (this.#discarding || stdout.isPaused()) return;
        stdout.pause();
        setImmediate(() => {
          if (!this.#discarding) stdout.resume();
        });
      });
      child.stderr?.on("data", (chunk: Buffer) => this.#onStderr(chunk));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed || this.#closing) return Promise.reject(new Error("not connected"));
    // Write errors surface through the stdin "error" listener; only backpressure is awaited here.
    if (stdin.write(serializeMessage(message))) return Promise.resolve();
    return new Promise((resolve) => stdin.once("drain", () => resolve()));
  }

  /** Ends and reaps the process group; resolves whether that was proven. Idempotent. */
  close(): Promise<void> {
    return this.closeGroup().then(() => undefined);
  }

  closeGroup(): Promise<boolean> {
    const child = this.#child;
    if (!child) return Promise.resolve(true);
    this.#closing ??= endProcessGroup(child, this.#launch.shutdownTimeoutMs);
    return this.#closing;
  }

  #closed(): void {
    if (this.#notifiedClose) return;
    this.#notifiedClose = true;
    this.onclose?.();
  }

  #onStdout(chunk: Buffer): void {
    if (this.#discarding) return;
    let start = 0;
    let newline = chunk.indexOf(0x0a, start);
    while (newline !== -1) {
      const tail = chunk.subarray(start, newline);
      const line = this.#pending.length === 0 ? tail : Buffer.concat([...this.#pending, tail]);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#deliver(line);
      if (this.#discarding) return;
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) {
      this.#pendingBytes += chunk.length - start;
      this.#pending.push(chunk.subarray(start));
      if (this.#pendingBytes > this.#launch.maxMessageBytes) this.#tooLarge();
    }
  }

  #deliver(line: Buffer): void {
    if (line.length > this.#launch.maxMessageBytes) {
      this.#tooLarge();
      return;
    }
    const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    if (end === 0) return;
    const text = line.toString("utf8", 0, end);
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch (error) {
      this.#invalidLines++;
      if (this.#invalidLines > INVALID_LINE_ALLOWANCE) {
        this.#stopReading(new NotJsonRpcOutput(INVALID_LINE_ALLOWANCE));
        return;
      }
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  #tooLarge(): void {
    this.#stopReading(new MessageTooLarge(this.#launch.maxMessageBytes));
  }

  /**
   * The connection is over: stdout is no longer read (a flooding writer then meets a closed pipe
   * instead of costing CPU here), nothing buffered is kept, and the process group is ended.
   */
  #stopReading(error: Error): void {
    if (this.#discarding) return;
    this.#discarding = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#child?.stdout?.destroy();
    this.onerror?.(error);
    void this.close();
  }

  #onStderr(chunk: Buffer): void {
    const tail = chunk.length > STDERR_TAIL_BYTES ? chunk.subarray(chunk.length - STDERR_TAIL_BYTES) : chunk;
    const joined = Buffer.concat([this.#stderrTail, tail]);
    this.#stderrTail =
      joined.length > STDERR_TAIL_BYTES ? joined.subarray(joined.length - STDERR_TAIL_BYTES) : joined;
  }
}
