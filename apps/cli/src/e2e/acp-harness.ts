/**
 * Drives `pablo acp` from outside, as an editor does: the built program as a separate process,
 * the SDK's client side over its stdio, and answers to permission cards and file requests that
 * the test decides.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import {
  client as acpClient,
  type ClientCapabilities,
  type ClientContext,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  methods,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { onTestFinished } from "vitest";
import { PABLO_BIN } from "./harness.js";

export interface AcpProcessOptions {
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** What the client declares at initialize (default: no fs methods). */
  readonly capabilities?: ClientCapabilities;
  /** Answers each permission card (default: never answers until cancelled). */
  readonly permission?: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>;
  /** Editor buffers: `fs/read_text_file` of one of these paths returns its unsaved text. */
  readonly buffers?: Record<string, string>;
  /** Answers each `elicitation/create` (default: the method is not served). */
  readonly elicit?: (
    request: CreateElicitationRequest,
    signal: AbortSignal,
  ) => Promise<CreateElicitationResponse>;
}

/** A running `pablo acp` with a connected client. */
export interface AcpProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly agent: ClientContext;
  /** Every `session/update` received, in order. */
  readonly updates: SessionNotification[];
  /** Every permission card received, in order. */
  readonly cards: RequestPermissionRequest[];
  /** Cards the agent withdrew (`$/cancel_request`) before the test answered them, by tool call ID. */
  readonly withdrawn: string[];
  /** Every `elicitation/create` received, in order, and those the agent withdrew before an answer. */
  readonly questions: CreateElicitationRequest[];
  readonly withdrawnQuestions: CreateElicitationRequest[];
  /** Paths the agent read and wrote through the client. */
  readonly reads: string[];
  readonly writes: { path: string; content: string }[];
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>;
}

/** The built binary's ACP agent: `pablo acp`. */
export function useBinary(): string[] {
  return [PABLO_BIN, "acp"];
}

/** Starts the program and initializes the connection; killed when the test finishes. */
export async function startAcp(options: AcpProcessOptions): Promise<AcpProcess> {
  const child = spawn(process.execPath, [...useBinary(), ...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolvePromise) =>
    child.on("close", (code) => resolvePromise(code)),
  );
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const updates: SessionNotification[] = [];
  const cards: RequestPermissionRequest[] = [];
  const withdrawn: string[] = [];
  const reads: string[] = [];
  const writes: { path: string; content: string }[] = [];
  const questions: CreateElicitationRequest[] = [];
  const withdrawnQuestions: CreateElicitationRequest[] = [];
  const base = acpClient({ name: "pablo-test-editor" });
  const { elicit } = options;
  const app = (
    elicit
      ? base.onRequest(methods.client.elicitation.create, ({ params, signal }) => {
          questions.push(params);
          signal.addEventListener("abort", () => withdrawnQuestions.push(params), { once: true });
          return elicit(params, signal);
        })
      : base
  )
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
      cards.push(params);
      if (options.permission) return options.permission(params);
      return new Promise<RequestPermissionResponse>((resolvePromise) => {
        signal.addEventListener(
          "abort",
          () => {
            withdrawn.push(params.toolCall.toolCallId);
            resolvePromise({ outcome: { outcome: "cancelled" } });
          },
          { once: true },
        );
      });
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => {
      reads.push(params.path);
      const buffer = options.buffers?.[params.path];
      return { content: buffer ?? readFileSync(params.path, "utf8") };
    })
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      writes.push({ path: params.path, content: params.content });
      writeFileSync(params.path, params.content);
      return {};
    });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  onTestFinished(() => connection.close());
  await connection.agent.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: options.capabilities ?? {},
  });
  return {
    child,
    agent: connection.agent,
    updates,
    cards,
    withdrawn,
    questions,
    withdrawnQuestions,
    reads,
    writes,
    stderr: () => stderr,
    exited,
  };
}

/** Selects one offered option by its kind. */
export function choose(kind: "allow_once" | "allow_always" | "reject_once") {
  return async (request: RequestPermissionRequest): Promise<RequestPermissionResponse> => {
    const option = request.options.find((o) => o.kind === kind);
    if (!option) throw new Error(`no ${kind} option offered`);
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  };
}

/** The `session/update` kinds received for one session, in order. */
export function updateKinds(process: AcpProcess, sessionId: string): string[] {
  return process.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update.sessionUpdate);
}
