import { defineTool, ok, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";

/** Plain kernel tools for serving tests: a low-risk echo, a progress reporter, a medium-risk tool. */
export function demoTools(): ToolDefinition[] {
  return [
    defineTool({
      name: "demo.echo",
      description: "Echoes its text.",
      summary: "Echo text",
      inputSchema: Type.Object(
        { text: Type.String({ description: "Text to echo." }) },
        { additionalProperties: false },
      ),
      risk: "low",
      effects: ["ui"],
      category: "read",
      mutates: false,
      execute: async (args) => ok({ echoed: args.text }),
    }),
    defineTool({
      name: "demo.progress",
      description: "Reports three progress steps, then finishes.",
      summary: "Report progress",
      inputSchema: Type.Object({}, { additionalProperties: false }),
      risk: "low",
      effects: ["ui"],
      category: "read",
      mutates: false,
      execute: async (_args, ctx) => {
        for (let step = 1; step <= 3; step++) ctx.progress({ kind: "demo.step", data: step });
        return ok("finished");
      },
    }),
    defineTool({
      name: "demo.risky",
      description: "A medium-risk tool that needs permission unless the mode is auto.",
      summary: "Risky",
      inputSchema: Type.Object({}, { additionalProperties: false }),
      risk: "medium",
      effects: ["net"],
      category: "external",
      mutates: true,
      execute: async () => ok("did the risky thing", { committed: true }),
    }),
    defineTool({
      name: "demo.secret",
      description: "Hidden by policy in the tests.",
      summary: "Secret",
      inputSchema: Type.Object({}, { additionalProperties: false }),
      risk: "low",
      effects: ["ui"],
      category: "read",
      mutates: false,
      execute: async () => ok("the secret"),
    }),
  ];
}
