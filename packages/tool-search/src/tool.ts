import { defineTool, ErrorCode, fail, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";
import type { SearchDocument } from "./document.js";
import type { AttachedSession } from "./tool-search.js";

export type ToolSearchOutput = "json" | "tool_reference";

export interface ToolSearchToolOptions {
  /** Finds the attached session of a call. */
  readonly lookup: (sessionId: string) => AttachedSession | undefined;
  readonly output: ToolSearchOutput;
  readonly maxResults: number;
}

const Input = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        'An exact tool name (or several, comma-separated, or "select:a,b"), or a few words describing the capability you need.',
    }),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, description: "Most tools to load (default 5)." }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The ToolSearch tool: finds deferred tools by exact name or capability query among the tools the
 * calling session may see, and loads the matches for the next turn. It changes no permission,
 * runs nothing in the workspace, and records the tools it loaded in the audit (`auditNotes.loaded`).
 */
export function createToolSearchTool(options: ToolSearchToolOptions): ToolDefinition {
  return defineTool({
    name: "tool-search",
    providerName: "ToolSearch",
    description:
      "Load on-demand tools. Give an exact tool name from the On-demand tools list, several names separated by commas, or a short description of the capability you need; the best matches become callable from your next turn.",
    summary: "Find and load on-demand tools by name or capability",
    inputSchema: Input,
    risk: "low",
    effects: [],
    category: "control",
    mutates: false,
    execute: async (args, ctx) => {
      const attached = options.lookup(ctx.sessionId);
      if (!attached) return fail(ErrorCode.TOOL_FAILED, "ToolSearch is not available in this session");
      const limit = Math.min(args.limit ?? options.maxResults, options.maxResults);
      const index = attached.index();
      const matches =
        exactMatches(args.query, index) ?? index.search(args.query, limit).map((h) => h.document);
      const names = matches.map((d) => d.providerName);
      attached.set.activate(ctx.promptId, names);
      const notes = { loaded: names, matches: names.length };
      if (options.output === "tool_reference") {
        return {
          ok: true,
          data: names.map((tool_name) => ({ type: "tool_reference", tool_name })),
          auditNotes: notes,
        };
      }
      return {
        ok: true,
        data: {
          loaded: matches.map((d) => ({ name: d.providerName, summary: d.summary })),
          note:
            names.length > 0
              ? "These tools can be called from your next turn."
              : "No on-demand tool matches. Try other words, or an exact name from the On-demand tools list.",
        },
        auditNotes: notes,
      };
    },
  });
}

/** Exact names: `name`, `a, b` or `select:a,b`. Undefined unless every part names a tool. */
function exactMatches(
  query: string,
  index: { exact(name: string): SearchDocument | undefined },
): SearchDocument[] | undefined {
  const parts = query
    .replace(/^\s*select:/i, "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (parts.length === 0 || parts.length > 20) return undefined;
  const found = parts.map((p) => index.exact(p));
  return found.every((d) => d !== undefined)
    ? [...new Map(found.map((d) => [d.providerName, d])).values()]
    : undefined;
}
