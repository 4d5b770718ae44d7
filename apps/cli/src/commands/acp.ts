import { resolve } from "node:path";
import { Readable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { loadDeploymentFile } from "@pablo/config";
import { createAcpServer, editorSessions } from "../acp/server.js";
import type { ParsedCommand } from "../args.js";
import { ConfigFailure, resolveBindings } from "../distribution.js";
import { Exit } from "../exit-codes.js";
import type { Io } from "../output.js";
import { PRESET_DIR, packageVersion } from "../package-root.js";
import { distributionSections } from "../providers.js";

/** `pablo acp`'s own usage line (the shared usage text lists it too). */
export const ACP_USAGE =
  "usage: pablo acp [--model PROVIDER:NAME] [--config FILE] [--bind NAME=DIR] [--permission MODE] [--allow-write] ...\n";

/**
 * `pablo acp`: Pablo as an Agent Client Protocol agent over stdio (newline-delimited JSON-RPC).
 * Nothing but protocol messages is written to stdout; diagnostics go to stderr. It takes the
 * options of `pablo run` (`--model`, `--config`, `--bind`, `--permission`, `--allow-write`, ...),
 * which every session the editor opens inherits. The configuration is checked before the first
 * message, so a broken deployment exits 2 at once. Ends when stdin closes (exit 0) or on SIGINT /
 * SIGTERM (exit 130), after every session's task (its MCP servers, its shell commands) is closed.
 */
export async function acpCommand(io: Io, parsed: ParsedCommand): Promise<number> {
  if (parsed.help) {
    io.stderr(ACP_USAGE);
    return Exit.OK;
  }
  checkConfiguration(io, parsed);
  const server = createAcpServer({
    version: packageVersion(),
    open: editorSessions({
      io,
      global: parsed.global,
      model: parsed.values["model"] as string | undefined,
    }),
  });
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      io.stdout(decoder.decode(chunk, { stream: true }));
    },
  });
  const input = Readable.toWeb(io.stdin as Readable) as ReadableStream<Uint8Array>;
  const connection = server.app.connect(server.ordered(ndJsonStream(output, input)));
  const stop = () => connection.close();
  io.signal.addEventListener("abort", stop, { once: true });
  try {
    await connection.closed.catch(() => undefined);
  } finally {
    io.signal.removeEventListener("abort", stop);
    await server.close();
  }
  return io.signal.aborted ? Exit.CANCELLED : Exit.OK;
}

/** Loads the deployment once up front: a configuration error is exit 2, not a broken session. */
function checkConfiguration(io: Io, parsed: ParsedCommand): void {
  const { bindings } = resolveBindings(parsed.global, io.cwd);
  const file = parsed.global.config ? resolve(io.cwd, parsed.global.config) : resolve(PRESET_DIR, "cli.toml");
  const loaded = loadDeploymentFile(file, { sections: distributionSections(), bindings });
  if (!loaded.ok) throw new ConfigFailure(loaded.errors);
}
