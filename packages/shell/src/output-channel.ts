import { once } from "node:events";
import { readlinkSync } from "node:fs";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { takeSocketPair } from "./socket-pairs.js";

/** One output stream of a child, read into a single reused buffer. */
export interface OutputChannel {
  /** What the child's descriptor is made from, for spawn's `stdio`. */
  readonly stdio: "pipe" | Socket;
  /** Resolves once every holder of the child's end has closed it and all output was delivered. */
  readonly closed: Promise<void>;
  /**
   * What the child's descriptor is open on as `/proc/PID/fd` shows it (`socket:[N]`, `pipe:[N]`),
   * read from this process's own end so that it is known even when the child ends at once.
   * Empty until `attach` for a pipe, and where `/proc` cannot be read.
   */
  target(): string;
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
  // A socket pair's ends are distinct inodes: the child's is the writer, read before it is handed over.
  const target = descriptorTarget(writer);
  return {
    stdio: writer,
    closed,
    target: () => target,
    attach: () => writer.destroy(),
    destroy: () => {
      writer.destroy();
      reader.destroy();
    },
  };
}

function pipeChannel(onChunk: (chunk: Buffer) => void): OutputChannel {
  let stream: Readable | null = null;
  let target = "";
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  return {
    stdio: "pipe",
    closed,
    target: () => target,
    attach(child) {
      stream = child;
      if (!child) return resolveClosed();
      // Both ends of a pipe are one inode, so this process's read end names the child's too.
      target = descriptorTarget(child);
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

function descriptorTarget(stream: Readable | Socket): string {
  const fd = (stream as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) return "";
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return "";
  }
}
