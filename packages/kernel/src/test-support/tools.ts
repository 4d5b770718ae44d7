import Type from "typebox";
import { defineTool, ok, type ToolDefinition } from "../index.js";

/** A no-op read tool with a closed schema. */
export function echoTool(overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    ...defineTool({
      name: "test.echo",
      description: "Echoes its text.",
      summary: "Echo text",
      inputSchema: Type.Object(
        { text: Type.String({ description: "Text to echo." }) },
        { additionalProperties: false },
      ),
      risk: "low",
      effects: ["fs.read"],
      category: "read",
      mutates: false,
      execute: async (args) => ok({ echoed: args.text }),
    }),
    ...overrides,
  } as ToolDefinition;
}

/** A high-risk write tool whose accesses name a path argument. */
export function writeTool(overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    ...defineTool({
      name: "test.write",
      description: "Pretends to write a file.",
      summary: "Write",
      inputSchema: Type.Object(
        { path: Type.String({ description: "Absolute path." }) },
        { additionalProperties: false },
      ),
      risk: "high",
      effects: ["fs.write"],
      category: "write",
      mutates: true,
      accesses: (args) => [{ dimension: "fs.write", path: args.path, root: "workspace" }],
      execute: async (args) => ok({ wrote: args.path }, { committed: true }),
    }),
    ...overrides,
  } as ToolDefinition;
}

/** Resolves after `ms`, or rejects when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
