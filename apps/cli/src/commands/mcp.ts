import { createServeBridge, serveCatalog } from "@pablo/mcp";
import type { GlobalOptions } from "../args.js";
import { openTask } from "../distribution.js";
import { Exit } from "../exit-codes.js";
import type { Io } from "../output.js";

/**
 * `pablo mcp serve [--http PORT]`: the governed catalog as an MCP server over stdio, or over
 * Streamable HTTP on 127.0.0.1. Every call passes the full pipeline; permission prompts become
 * MCP elicitations where the client supports them and are denied otherwise.
 */
export async function mcpServeCommand(
  io: Io,
  global: GlobalOptions,
  options: { port: number | undefined },
): Promise<number> {
  const bridge = createServeBridge();
  const task = await openTask(global, {
    cwd: io.cwd,
    env: io.env,
    signal: io.signal,
    broker: bridge.broker,
    events: bridge.events,
  });
  try {
    const served = await serveCatalog(
      task.session,
      options.port === undefined
        ? { transport: "stdio", bridge }
        : { transport: "http", port: options.port, host: "127.0.0.1", bridge },
    );
    if (served.url) io.stderr(`pablo: serving the governed catalog at ${served.url}\n`);
    const stop = () => void served.close();
    io.signal.addEventListener("abort", stop, { once: true });
    await served.closed;
    io.signal.removeEventListener("abort", stop);
    return io.signal.aborted && options.port === undefined ? Exit.CANCELLED : Exit.OK;
  } finally {
    await task.close();
  }
}
