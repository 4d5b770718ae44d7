import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinition, ToolProvider } from "@pablo/kernel";
import type { McpConnection } from "./connection.js";
import { type McpDiagnostic, McpDiagnosticCode } from "./diagnostics.js";
import { MCP_DEFAULTS } from "./options-schema.js";
import { adaptTool, toolHash } from "./tool-adapter.js";

/**
 * The tools of one server for one task, as a kernel {@link ToolProvider}. Definitions are hashed
 * at admission; when the server announces a changed list, a tool whose definition changed or
 * disappeared is disabled for the rest of the task (with a diagnostic), and a new tool is only
 * reported, since the task's catalog is frozen.
 */
export class McpServerProvider implements ToolProvider {
  readonly id: string;
  readonly #connection: McpConnection;
  readonly #definitions: ToolDefinition[] = [];
  readonly #hashes = new Map<string, string>();
  readonly #disabled = new Map<string, string>();
  /** Server tool names offered in this task's catalog. */
  readonly #admitted = new Set<string>();
  readonly #report: (diagnostic: McpDiagnostic) => void;
  #closed: Promise<boolean> | undefined;

  constructor(
    connection: McpConnection,
    listed: readonly Tool[],
    report: (diagnostic: McpDiagnostic) => void,
  ) {
    const server = connection.server;
    this.id = `mcp/${server.name}`;
    this.#connection = connection;
    this.#report = report;
    const tools = listed.slice(0, server.maxTools);
    if (listed.length > server.maxTools) {
      report({
        server: server.name,
        code: McpDiagnosticCode.TOOL_UNSUPPORTED,
        message: `the server lists more than ${server.maxTools} tools; the rest are left out`,
      });
    }
    const adapted: Array<[string, ToolDefinition]> = [];
    for (const tool of tools) {
      this.#hashes.set(tool.name, toolHash(tool));
      const result = adaptTool(connection, tool, false, this.#disabled);
      if ("execute" in result) adapted.push([tool.name, result]);
      else report(result);
    }
    const deferAll =
      server.deferred === "auto" ? adapted.length > MCP_DEFAULTS.deferredThreshold : server.deferred;
    for (const [tool, definition] of adapted) {
      this.#admitted.add(tool);
      this.#definitions.push({ ...definition, deferred: server.toolDeferred.get(tool) ?? deferAll });
    }
    connection.onToolsChanged = (next, problem) => this.#compare(next, problem);
    connection.onEnded = (reason) =>
      report({ server: server.name, code: McpDiagnosticCode.SERVER_EXITED, message: reason });
  }

  get server(): string {
    return this.#connection.server.name;
  }

  tools(): readonly ToolDefinition[] {
    return this.#definitions;
  }

  /** Drops definitions (name collisions found across servers) before the catalog is built. */
  exclude(names: ReadonlySet<string>): void {
    for (let i = this.#definitions.length - 1; i >= 0; i--) {
      const name = this.#definitions[i]?.name ?? "";
      if (!names.has(name)) continue;
      this.#definitions.splice(i, 1);
      this.#admitted.delete(name.slice(this.id.length + 1));
    }
  }

  /** Ends the session and, for stdio, the process group. Contract: never throws. */
  async close(): Promise<void> {
    await this.closeReaped();
  }

  /** Like {@link close}, resolving whether the server's processes were proven ended. */
  closeReaped(): Promise<boolean> {
    this.#closed ??= this.#connection.close().catch(() => false);
    return this.#closed;
  }

  #compare(next: Tool[] | undefined, problem: string | undefined): void {
    const server = this.#connection.server.name;
    if (!next) {
      for (const name of this.#admitted)
        this.#disable(name, `the tool list could not be re-read (${problem})`);
      return;
    }
    const seen = new Map(next.map((tool) => [tool.name, toolHash(tool)]));
    for (const [name, hash] of this.#hashes) {
      if (!this.#admitted.has(name)) continue;
      const now = seen.get(name);
      if (now === undefined) this.#disable(name, "the server no longer lists it");
      else if (now !== hash) this.#disable(name, "its definition changed after admission");
    }
    for (const name of seen.keys()) {
      if (this.#hashes.has(name)) continue;
      this.#hashes.set(name, seen.get(name) ?? "");
      this.#report({
        server,
        tool: name,
        code: McpDiagnosticCode.TOOL_ADDED,
        message: "the tool appeared after admission; it is offered from the next task on",
      });
    }
  }

  #disable(name: string, reason: string): void {
    if (this.#disabled.has(name)) return;
    this.#disabled.set(name, reason);
    this.#report({
      server: this.#connection.server.name,
      tool: name,
      code: McpDiagnosticCode.DEFINITION_CHANGED,
      message: `disabled for the rest of the task: ${reason}`,
    });
  }
}
