import { defineTool, ErrorCode, fail, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";
import type { AttachedSession } from "./attached-session.js";
import type { SearchDocument } from "./document.js";

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
      const named = exactNames(args.query, index, attached);
      const matches = named ? named.found : index.search(args.query, limit).map((h) => h.document);
      const unavailable = named?.unavailable ?? [];
      const names = matches.map((d) => d.providerName);
      attached.set.activate(ctx.promptId, names);
      const notes = {
        loaded: names,
        matches: names.length,
        ...(unavailable.length > 0 ? { unavailable: unavailable.map((u) => u.name) } : {}),
      };
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
          ...(unavailable.length > 0 ? { unavailable } : {}),
          note:
            names.length > 0
              ? "These tools can be called from your next turn."
              : unavailable.length > 0
                ? "Nothing was loaded: the tools you named are not available in this session."
                : "No on-demand tool matches. Try other words, or an exact name from the On-demand tools list.",
        },
        auditNotes: notes,
      };
    },
  });
}

/** A tool the model named exactly that this session may not load, with the rule that says so. */
export type UnavailableTool = { readonly name: string; readonly reason: string };

/**
 * Exact names: `name`, `a, b` or `select:a,b`. Undefined unless every part names a catalog tool:
 * a loadable deferred one (found), or one that policy, the mode or its always-on status keeps out
 * of the on-demand set (unavailable, with the rule). A name that is not admitted never falls
 * through to a capability search, which would load some other tool in its place.
 */
function exactNames(
  query: string,
  index: { exact(name: string): SearchDocument | undefined },
  attached: AttachedSession,
): { found: SearchDocument[]; unavailable: UnavailableTool[] } | undefined {
  const parts = query
    .replace(/^\s*select:/i, "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (parts.length === 0 || parts.length > 20) return undefined;
  const found = new Map<string, SearchDocument>();
  const unavailable: UnavailableTool[] = [];
  let visibility: ReturnType<AttachedSession["session"]["visibility"]> | undefined;
  for (const part of parts) {
    const document = index.exact(part);
    if (document) {
      found.set(document.providerName, document);
      continue;
    }
    visibility ??= attached.session.visibility();
    const wanted = part.toLowerCase();
    const entry = visibility.find(
      (v) => v.entry.providerName.toLowerCase() === wanted || v.entry.name.toLowerCase() === wanted,
    );
    if (!entry) return undefined;
    unavailable.push({
      name: part,
      reason: entry.visible
        ? "already available: it is not an on-demand tool"
        : `not available: ${entry.decision.layer}/${entry.decision.rule}`,
    });
  }
  return { found: [...found.values()], unavailable };
}
