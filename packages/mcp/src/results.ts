import { ErrorCode, fail, type JsonObject, ok, type ToolResult, type Validator } from "@pablo/kernel";
import type { CallOutcome } from "./connection.js";
import { scrubSecrets } from "./credentials.js";
import { McpErrorCode } from "./diagnostics.js";
import { McpOAuthCode } from "./oauth/codes.js";

/** Which tool a result belongs to, for messages. */
export interface ToolRef {
  readonly server: string;
  readonly tool: string;
  readonly nativeName: string;
  readonly timeoutMs: number;
}

/**
 * What the model receives from an MCP tool. Success: `{ text: [...ordered text blocks],
 * structured?: {...} }`. Image, audio, resource and resource-link blocks fail the whole call
 * with `UNSUPPORTED_CONTENT` instead of being flattened. Structured content is validated against
 * the declared output schema. Values of this server's credentials are replaced by `[REDACTED]`
 * after validation. Outcomes whose remote completion is unknown say so in `details` and in the
 * audit notes (the kernel replaces a cancelled call's result with its own).
 */
export function toToolResult(
  outcome: CallOutcome,
  ref: ToolRef,
  outputValidator: Validator | undefined,
  secrets: readonly string[],
): ToolResult {
  const unknown = { remoteCompletion: "unknown", server: ref.server, tool: ref.tool };
  switch (outcome.kind) {
    case "timeout":
      return withNotes(
        fail(
          ErrorCode.TOOL_TIMEOUT,
          `${ref.nativeName} did not answer within ${ref.timeoutMs} ms; Pablo asked the server to cancel it, but whether it completed remotely is unknown`,
          { ...unknown, timeoutMs: ref.timeoutMs },
        ),
      );
    case "cancelled":
      return withNotes(
        fail(
          ErrorCode.TOOL_CANCELLED,
          `${ref.nativeName} was cancelled; whether it completed remotely is unknown`,
          unknown,
        ),
      );
    case "disconnected":
      return withNotes(
        fail(
          McpErrorCode.SERVER_DISCONNECTED,
          `the connection to MCP server ${ref.server} ended during the call (${outcome.reason}); whether it completed remotely is unknown`,
          unknown,
        ),
      );
    case "unavailable":
      return fail(
        McpErrorCode.SERVER_UNAVAILABLE,
        `MCP server ${ref.server} is no longer available in this task (${outcome.reason}); the call was not sent`,
        { server: ref.server, tool: ref.tool },
      );
    case "unauthorized":
      // The message names `pablo mcp login NAME`; it never carries a token.
      return fail(McpOAuthCode.UNAUTHORIZED, outcome.message, { server: ref.server, tool: ref.tool });
    case "protocol-error":
      return fail(ErrorCode.TOOL_FAILED, `${ref.nativeName}: ${outcome.message}`, {
        server: ref.server,
        tool: ref.tool,
      });
    case "result": {
      const result = fromCallResult(outcome.result, ref, outputValidator, secrets);
      // The audit says the answer came over a resumed stream, and how the server's questions were
      // answered (the action only, never the values); the model is not told.
      if (!outcome.resumedStreams && !outcome.elicitations) return result;
      return {
        ...result,
        auditNotes: {
          ...result.auditNotes,
          ...(outcome.resumedStreams ? { resumedStreams: outcome.resumedStreams } : {}),
          ...(outcome.elicitations ? { elicitations: outcome.elicitations } : {}),
        },
      };
    }
  }
}

function fromCallResult(
  result: Extract<CallOutcome, { kind: "result" }>["result"],
  ref: ToolRef,
  outputValidator: Validator | undefined,
  secrets: readonly string[],
): ToolResult {
  const where = { server: ref.server, tool: ref.tool };
  // One pass over the blocks: this runs on every call.
  const text: string[] = [];
  let unsupported: Set<string> | undefined;
  for (const block of result.content ?? []) {
    if (block.type === "text")
      text.push(secrets.length === 0 ? block.text : scrubSecrets(block.text, secrets));
    else {
      unsupported ??= new Set();
      unsupported.add(block.type);
    }
  }
  if (unsupported) {
    const types = [...unsupported];
    return fail(
      ErrorCode.UNSUPPORTED_CONTENT,
      `${ref.nativeName} returned ${types.join(", ")} content, which Pablo does not pass on (only text and structured JSON)`,
      { ...where, types },
    );
  }
  if (result.isError) {
    return fail(
      ErrorCode.TOOL_FAILED,
      `${ref.nativeName} reported an error: ${text.join("\n") || "(no message)"}`,
      {
        ...where,
        remoteError: true,
      },
    );
  }
  const structured = result.structuredContent as JsonObject | undefined;
  if (outputValidator) {
    if (structured === undefined) {
      return fail(
        ErrorCode.TOOL_CONTRACT_VIOLATION,
        `${ref.nativeName} declares an output schema but returned no structured content`,
        where,
      );
    }
    if (!outputValidator.check(structured)) {
      return fail(
        ErrorCode.TOOL_CONTRACT_VIOLATION,
        `${ref.nativeName} returned structured content that does not match its declared output schema`,
        { ...where, issues: outputValidator.issues(structured, 5) },
      );
    }
  }
  return ok(structured === undefined ? { text } : { text, structured: scrubSecrets(structured, secrets) });
}

function withNotes(result: ToolResult): ToolResult {
  return { ...result, auditNotes: { remoteCompletion: "unknown" } };
}
