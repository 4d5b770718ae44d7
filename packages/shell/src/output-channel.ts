import { once } from "node:events";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { takeSocketPair } from "./socket-pairs.js";

/** One output stream of a child, read into a single reused buffer. */
export interface OutputChannel {
  /** What the child's descriptor is made from, for spawn's `stdio`. */
  readonly stdio: "pipe" | Socket;
  /** Resolves once every holder of the child's end has closed it and all output was delivered. */
  readonly closed: Promise<void>;
  /** Call right after spawn with the child's stream (null unless `stdio` is "pipe"). */
  attach(stream: Readable | null): void;
  /** Stops reading and closes this end. */
  destroy(): void;
}

/**
 * Opens a channel for one output stream. A stream read the ordinary way allocates a buffer per
 * read and leaves the garbage collector to free them, so a flood grows the heap by tens of MiB;
 * instead, the child's end is one side of a connected Unix socket pair and this side reads with
 * `onread` into one reused buffer, so memory stays flat. `onChunk` receives a view of that
 * buffer, valid only during the call. Falls back to an ordinary pipe when no pair can be made.
 */
export async function openOutputChannel(onChunk: (chunk: Buffer) => void): Promise<OutputChannel> {
  const pair = await takeSocketPair(onChunk).catch(() => undefined);
  if (!pair) return pipeChannel(onChunk);
  const { reader, writer } = pair;
  const closed = once(reader, "close").then(() => undefined);
  reader.on("error", () => undefined);
  writer.on("error", () => undefined);
  return {
    stdio: writer,
    closed,
    attach: () => writer.destroy(),
    destroy: () => {
      writer.destroy();
      reader.destroy();
    },
  };
}

function pipeChannel(onChunk: (chunk: Buffer) => void): OutputChannel {
  let stream: Readable | null = null;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  return {
    stdio: "pipe",
    closed,
    attach(child) {
      stream = child;
      if (!child) return resolveClosed();
      child.on("data", onChunk);
      child.on("error", () => undefined);
      child.once("close", resolveClosed);
    },
    destroy: () => {
      stream?.destroy();
      resolveClosed();
    },
  };
}
