import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A connected pair of Unix stream sockets: the writer goes to a child, the reader stays here. */
export interface SocketPair {
  readonly reader: Socket;
  readonly writer: Socket;
}

const READ_BUFFER_BYTES = 256 * 1024;
const TOKEN_BYTES = 16;
const SPARES = 2;
/** Connections that have not yet sent a token: at most this many, for at most this long. */
const MAX_UNIDENTIFIED = 64;
const UNIDENTIFIED_MS = 2_000;
/**
 * Read buffers of closed pairs, reused by the next pairs: a fresh 256 KiB buffer per stream and
 * run was a fresh mapping each time and, as external memory, brought the collector round sooner
 * (about 1 ms of CPU per `true` between the two). Bounded, so a burst of runs leaves no hoard.
 */
const MAX_FREE_BUFFERS = 8;
const freeBuffers: Buffer[] = [];

/**
 * Takes a connected pair whose reader delivers every read through `onChunk`, as a view of one
 * reused buffer. Pairs come from a listening socket made once per process; a couple are kept
 * ready so a run does not wait for the handshake.
 * Rejects when no pair can be made.
 */
export async function takeSocketPair(onChunk: (chunk: Buffer) => void): Promise<SocketPair> {
  server ??= startServer();
  const current = await server;
  if (!current) throw new Error("no socket pair server");
  try {
    return await current.take(onChunk);
  } catch (error) {
    // The socket may have been removed (a tmp cleaner); the next run starts a new server.
    server = undefined;
    throw error;
  }
}

/**
 * Connects to the Unix socket at `path`, presents `token` as its first bytes, and delivers every
 * read through `onChunk` as a view of one buffer taken from a bounded free list and returned to it
 * when the socket closes. Errors end the socket; listen for "close".
 */
export function connectReader(path: string, token: Buffer, onChunk: (chunk: Buffer) => void): Socket {
  const buffer = freeBuffers.pop() ?? Buffer.allocUnsafe(READ_BUFFER_BYTES);
  const reader = connect({
    path,
    onread: {
      buffer,
      callback: (nread: number) => {
        onChunk(buffer.subarray(0, nread));
        return true;
      },
    },
  });
  reader.on("error", () => undefined);
  // A closed reader delivers nothing more into its buffer, so the next one may read into it.
  reader.once("close", () => {
    if (freeBuffers.length < MAX_FREE_BUFFERS) freeBuffers.push(buffer);
  });
  reader.write(token);
  return reader;
}

interface PooledPair extends SocketPair {
  sink: (chunk: Buffer) => void;
}

class PairServer {
  readonly #server: Server;
  readonly #path: string;
  readonly #waiting = new Map<string, (socket: Socket) => void>();
  readonly #spares: Array<Promise<PooledPair | undefined>> = [];
  readonly #unidentified = new Set<Socket>();

  constructor(server: Server, path: string) {
    this.#server = server;
    this.#path = path;
    server.on("connection", (socket) => this.#accept(socket));
  }

  async take(onChunk: (chunk: Buffer) => void): Promise<SocketPair> {
    const spare = this.#spares.shift();
    // Replenished once the caller has moved on, so making a pair never delays a run.
    setImmediate(() => {
      while (this.#spares.length < SPARES) this.#spares.push(this.#make().catch(() => undefined));
    });
    const pair = (await spare) ?? (await this.#make());
    pair.sink = onChunk;
    pair.reader.ref();
    pair.writer.ref();
    return pair;
  }

  /** Connects a reader and matches it with the accepted end by a random token. */
  async #make(): Promise<PooledPair> {
    const token = randomBytes(TOKEN_BYTES);
    const key = token.toString("hex");
    const accepted = new Promise<Socket>((resolve) => this.#waiting.set(key, resolve));
    const pair: { sink: (chunk: Buffer) => void } = { sink: () => undefined };
    const reader = connectReader(this.#path, token, (chunk) => pair.sink(chunk));
    try {
      await once(reader, "connect");
      const writer = await withTimeout(accepted, 2_000);
      // A spare must not keep the process alive.
      reader.unref();
      writer.unref();
      return Object.assign(pair, { reader, writer });
    } catch (error) {
      this.#waiting.delete(key);
      reader.destroy();
      throw error;
    }
  }

  #accept(socket: Socket): void {
    socket.on("error", () => undefined);
    // A connection that is not a pending reader is closed: at once for a wrong token, and after
    // a moment for one that sends nothing, so connections cannot pile up.
    this.#unidentified.add(socket);
    if (this.#unidentified.size > MAX_UNIDENTIFIED) {
      const oldest = this.#unidentified.values().next().value;
      this.#unidentified.delete(oldest as Socket);
      oldest?.destroy();
    }
    const timer = setTimeout(() => socket.destroy(), UNIDENTIFIED_MS);
    timer.unref();
    socket.once("close", () => {
      clearTimeout(timer);
      this.#unidentified.delete(socket);
    });
    let received = Buffer.alloc(0);
    const onData = (data: Buffer) => {
      received = Buffer.concat([received, data]);
      if (received.length < TOKEN_BYTES) return;
      socket.off("data", onData);
      socket.pause();
      clearTimeout(timer);
      this.#unidentified.delete(socket);
      const token = received.subarray(0, TOKEN_BYTES).toString("hex");
      const resolve = this.#waiting.get(token);
      this.#waiting.delete(token);
      if (resolve && received.length === TOKEN_BYTES) resolve(socket);
      else socket.destroy();
    };
    socket.on("data", onData);
  }

  close(): void {
    this.#server.close();
    rmSync(dirname(this.#path), { recursive: true, force: true });
  }
}

let server: Promise<PairServer | undefined> | undefined;

/**
 * Listens in a private 0700 temporary directory, so only this user (and root) can connect; not in
 * Linux's abstract namespace, which has no permissions: any local user could connect there and,
 * by holding connections open, exhaust this process's descriptors. Only a connection that sends a
 * pending random token is ever handed out, and nothing is written to any other.
 */
async function startServer(): Promise<PairServer | undefined> {
  let path: string | undefined;
  try {
    path = privateSocketPath("pablo-pairs-", "out.sock");
    const listener = createServer();
    listener.listen(path);
    await Promise.race([
      once(listener, "listening"),
      once(listener, "error").then(([error]) => Promise.reject(error)),
    ]);
    listener.unref();
    const pairServer = new PairServer(listener, path);
    process.once("exit", () => pairServer.close());
    return pairServer;
  } catch {
    if (path) rmSync(dirname(path), { recursive: true, force: true });
    return undefined;
  }
}

/**
 * A socket path in a new directory only this user can enter (mkdtemp makes it 0700), named
 * `<prefix><pid>-` and six random characters. A process killed by a signal never removes its
 * own, so those of processes that are gone are swept first, once per prefix.
 */
export function privateSocketPath(prefix: string, name: string): string {
  if (!swept.has(prefix)) {
    swept.add(prefix);
    sweepDirectoriesOfGoneProcesses(prefix);
  }
  return join(mkdtempSync(join(tmpdir(), `${prefix}${process.pid}-`)), name);
}

const swept = new Set<string>();

function sweepDirectoriesOfGoneProcesses(prefix: string): void {
  const uid = process.getuid?.();
  let entries: string[];
  try {
    entries = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!entry.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-/.exec(entry.slice(prefix.length))?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || isRunning(pid)) continue;
    const path = join(tmpdir(), entry);
    try {
      const stat = lstatSync(path);
      if (stat.isDirectory() && stat.uid === uid) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed meanwhile, or not ours to remove.
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("socket pair timed out")), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
