import { createHash } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  type Access,
  canonicalJson,
  compileValidator,
  fail,
  type Risk,
  type ToolDefinition,
  type Validator,
} from "@pablo/kernel";
import type { McpConnection } from "./connection.js";
import { scrubSecrets } from "./credentials.js";
import { type McpDiagnostic, McpDiagnosticCode, McpErrorCode } from "./diagnostics.js";
import { isUsableToolName, mcpNativeName, mcpProviderName } from "./names.js";
import { toToolResult } from "./results.js";
import { boundOutputSchema, closeInputSchema } from "./schema-subset.js";

const MAX_DESCRIPTION_CHARS = 8192;
const MAX_SUMMARY_CHARS = 160;
/** Progress notifications forwarded per call; the rest are counted, not streamed. */
export const MAX_PROGRESS_EVENTS = 1000;

/** Tools disabled during the task (definition changed), checked before every call. */
export type DisabledTools = ReadonlyMap<string, string>;

/**
 * SHA-256 of everything about a tool definition that could change what a call means: name,
 * title, description, both schemas, annotations and execution hints.
 */
export function toolHash(tool: Tool): string {
  const { name, title, description, inputSchema, outputSchema, annotations, execution } = tool;
  return createHash("sha256")
    .update(canonicalJson({ name, title, description, inputSchema, outputSchema, annotations, execution }))
    .digest("hex");
}

/**
 * The risk of an MCP tool: the deployment's risk for the server (default medium), raised to
 * high by `destructiveHint: true`. Server annotations are untrusted, so `readOnlyHint` never
 * lowers it.
 */
export function riskFor(base: Risk, tool: Tool): Risk {
  return tool.annotations?.destructiveHint === true ? "high" : base;
}

/**
 * Turns one listed MCP tool into a kernel tool definition, or explains why it is left out:
 * unusable name, task-only execution, or a schema outside the supported subset.
 */
export function adaptTool(
  connection: McpConnection,
  tool: Tool,
  deferred: boolean,
  disabled: DisabledTools,
): ToolDefinition | McpDiagnostic {
  const server = connection.server;
  const left = (code: McpDiagnostic["code"], message: string): McpDiagnostic => ({
    server: server.name,
    tool: tool.name,
    code,
    message,
  });
  if (!isUsableToolName(server.name, tool.name)) {
    return left(
      McpDiagnosticCode.TOOL_UNSUPPORTED,
      "the tool name cannot form a native name (printable ASCII, no /, at most 256 characters)",
    );
  }
  if (tool.execution?.taskSupport === "required") {
    return left(
      McpDiagnosticCode.TOOL_UNSUPPORTED,
      "the tool requires task-based execution, which Pablo does not use",
    );
  }
  const input = closeInputSchema(tool.inputSchema);
  if (!input.ok)
    return left(McpDiagnosticCode.SCHEMA_UNSUPPORTED, `input schema at ${input.pointer}: ${input.reason}`);
  let outputValidator: Validator | undefined;
  if (tool.outputSchema !== undefined) {
    const output = boundOutputSchema(tool.outputSchema);
    if (!output.ok)
      return left(
        McpDiagnosticCode.SCHEMA_UNSUPPORTED,
        `output schema at ${output.pointer}: ${output.reason}`,
      );
    try {
      outputValidator = compileValidator(output.schema);
    } catch {
      return left(McpDiagnosticCode.SCHEMA_UNSUPPORTED, "output schema does not compile");
    }
  }

  const nativeName = mcpNativeName(server.name, tool.name);
  const ref = { server: server.name, tool: tool.name, nativeName, timeoutMs: server.operationTimeoutMs };
  const scope: Access[] = [
    { dimension: "mcp.server", value: server.name },
    { dimension: "mcp.tool", value: nativeName },
    ...(server.transport === "stdio" ? [{ dimension: "mcp.launcher", path: server.command } as const] : []),
  ];
  const description = describe(tool, server.name);
  return {
    name: nativeName,
    providerName: mcpProviderName(server.name, tool.name),
    description,
    summary: summarize(tool, description),
    inputSchema: input.schema,
    risk: riskFor(server.risk, tool),
    effects: ["mcp"],
    category: "external",
    // Server annotations cannot loosen serialization either.
    mutates: true,
    deferred,
    scope,
    execute: async (args, ctx) => {
      const reason = disabled.get(tool.name);
      if (reason !== undefined) {
        return fail(
          McpErrorCode.TOOL_CHANGED,
          `${nativeName} is disabled for the rest of this task: ${reason}`,
          {
            server: server.name,
            tool: tool.name,
          },
        );
      }
      let forwarded = 0;
      const outcome = await connection.callTool(tool.name, args as Record<string, unknown>, {
        onAbort: ctx.onAbort,
        timeoutMs: server.operationTimeoutMs,
        onProgress: (progress) => {
          if (++forwarded > MAX_PROGRESS_EVENTS) return;
          ctx.progress({
            kind: "mcp.progress",
            data: {
              progress: progress.progress,
              ...(progress.total === undefined ? {} : { total: progress.total }),
              ...(progress.message === undefined
                ? {}
                : { message: scrubSecrets(progress.message, connection.secrets) }),
            },
          });
        },
      });
      return toToolResult(outcome, ref, outputValidator, connection.secrets);
    },
  };
}

function describe(tool: Tool, server: string): string {
  const text = tool.description?.trim() || tool.title?.trim() || `Tool ${tool.name} of MCP server ${server}.`;
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : text;
}

function summarize(tool: Tool, description: string): string {
  const line = (tool.title?.trim() || description.split("\n")[0] || tool.name).trim();
  return line.length > MAX_SUMMARY_CHARS ? `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…` : line;
}
