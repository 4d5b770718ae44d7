import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the loopback server received: method, path, headers and the parsed JSON body. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: unknown;
}

/**
 * What the server answers. `sse` writes each frame as it is, in order, with `delayMs` between
 * frames; `truncate` destroys the socket after that many frames (a connection dropped mid-stream);
 * `hold` keeps the response open after the frames until the promise settles. `http` answers a
 * plain response (an error status with its headers, or a body that is not an event stream).
 */
export type LoopbackReply =
  | {
      readonly kind: "sse";
      readonly frames: readonly string[];
      readonly delayMs?: number;
      readonly truncate?: number;
      readonly hold?: Promise<unknown>;
    }
  | {
      readonly kind: "http";
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body: string;
    };

export type LoopbackHandler = (
  request: RecordedRequest,
  index: number,
) => LoopbackReply | Promise<LoopbackReply>;

/** A provider stand-in on 127.0.0.1. Close it in the test that opened it. */
export interface LoopbackServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

/** Starts an HTTP server on 127.0.0.1 with an ephemeral port that answers through `handler`. */
export async function startLoopbackServer(handler: LoopbackHandler): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const server: Server = createServer((req, res) => {
    void serve(req, res);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      // Recorded as text: a test may assert on what a client sent that was not JSON.
    }
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    const recorded: RecordedRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers, body };
    const index = requests.length;
    requests.push(recorded);
    let reply: LoopbackReply;
    try {
      reply = await handler(recorded, index);
    } catch (error) {
      reply = { kind: "http", status: 500, body: JSON.stringify({ error: String(error) }) };
    }
    await write(res, reply);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function write(res: ServerResponse, reply: LoopbackReply): Promise<void> {
  if (reply.kind === "http") {
    res.writeHead(reply.status, { "content-type": "application/json", ...(reply.headers ?? {}) });
    res.end(reply.body);
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.flushHeaders();
  let sent = 0;
  for (const frame of reply.frames) {
    if (reply.truncate !== undefined && sent >= reply.truncate) {
      res.socket?.destroy();
      return;
    }
    if (res.destroyed) return;
    res.write(frame);
    sent++;
    if (reply.delayMs) await sleep(reply.delayMs);
  }
  if (reply.truncate !== undefined && sent >= reply.truncate) {
    res.socket?.destroy();
    return;
  }
  if (reply.hold) await reply.hold.catch(() => undefined);
  if (!res.destroyed) res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
