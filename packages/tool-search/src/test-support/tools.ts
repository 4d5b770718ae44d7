import { defineTool, ok, type ToolCategory, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";

/** A tool with one string parameter; deferred unless told otherwise. */
export function tool(
  name: string,
  summary: string,
  description: string,
  extra: { deferred?: boolean; category?: ToolCategory; param?: [string, string] } = {},
): ToolDefinition {
  const [param, paramDescription] = extra.param ?? ["input", "The input."];
  return defineTool({
    name,
    description,
    summary,
    inputSchema: Type.Object(
      { [param]: Type.String({ description: paramDescription }) },
      { additionalProperties: false },
    ),
    risk: "low",
    effects: [],
    category: extra.category ?? "read",
    mutates: false,
    deferred: extra.deferred ?? true,
    execute: async () => ok(name),
  }) as ToolDefinition;
}

export const sampleTools = (): ToolDefinition[] => [
  tool(
    "fs.glob",
    "List files by pattern",
    "Lists workspace files whose paths match a glob pattern such as src/**/*.ts.",
    {
      param: ["pattern", "Glob pattern."],
    },
  ),
  tool(
    "fs.grep",
    "Search file contents",
    "Searches the content of workspace files for a regular expression.",
    {
      param: ["regex", "Regular expression to look for."],
    },
  ),
  tool(
    "plugin.tracker.issue_create",
    "Open a new issue in the tracker",
    "Creates an issue in the team's bug tracker with a title and body.",
    {
      category: "plugin",
      param: ["title", "Short title of the issue."],
    },
  ),
  tool(
    "plugin.tracker.issue_close",
    "Close an issue",
    "Closes an existing issue in the bug tracker by its number.",
    {
      category: "plugin",
      param: ["number", "Issue number."],
    },
  ),
  tool("plugin.web.fetch", "Fetch a web page", "Downloads one web page over HTTPS and returns its text.", {
    category: "plugin",
    param: ["url", "Absolute https URL."],
  }),
  tool(
    "secrets.dump",
    "Dump every stored secret",
    "Prints all secrets in the vault (denied by policy in tests).",
  ),
  tool("fs.read", "Read a file", "Reads a file of the workspace.", {
    deferred: false,
    param: ["path", "File path."],
  }),
];
