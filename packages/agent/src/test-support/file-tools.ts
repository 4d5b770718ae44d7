import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineTool, ErrorCode, fail, ok, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";

/**
 * Small real-file tools with the native names and result shapes of @pablo/fs (path, revision,
 * content; review records on writes), so the loop's tests run through a real kernel without
 * depending on the fs package. Paths are workspace-relative names without separators.
 */
export function fileTools(workspace: string, options: { deferGlob?: boolean } = {}): ToolDefinition[] {
  const PathArg = Type.String({ pattern: "^[A-Za-z0-9._-]+$", description: "File name in the workspace." });
  const at = (path: string) => join(workspace, path);
  const revision = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
  return [
    defineTool({
      name: "fs.read",
      summary: "Read a file",
      description: "Reads a workspace file and its revision.",
      inputSchema: Type.Object({ path: PathArg }, { additionalProperties: false }),
      risk: "low",
      effects: ["fs.read"],
      category: "read",
      mutates: false,
      accesses: (args) => [{ dimension: "fs.read", path: at(args.path), root: "workspace" }],
      execute: async (args) => {
        try {
          const bytes = readFileSync(at(args.path));
          return ok({ path: args.path, revision: revision(bytes), content: bytes.toString("utf8") });
        } catch {
          return fail(ErrorCode.NOT_FOUND, `${args.path} does not exist`);
        }
      },
    }),
    defineTool({
      name: "fs.write",
      summary: "Write a file",
      description: "Creates or replaces a workspace file.",
      inputSchema: Type.Object(
        { path: PathArg, content: Type.String({ description: "New content." }) },
        { additionalProperties: false },
      ),
      risk: "high",
      effects: ["fs.write"],
      category: "write",
      mutates: true,
      accesses: (args) => [{ dimension: "fs.write", path: at(args.path), root: "workspace" }],
      execute: async (args) => {
        writeFileSync(at(args.path), args.content);
        const rev = revision(Buffer.from(args.content));
        return ok(
          {
            path: args.path,
            revision: rev,
            review: { snapshotId: `snap-${rev.slice(0, 8)}`, path: args.path },
          },
          { committed: true },
        );
      },
    }),
    defineTool({
      name: "fs.glob",
      summary: "List files matching a glob pattern",
      description: "Lists workspace files whose names match a pattern.",
      inputSchema: Type.Object(
        { pattern: Type.String({ description: "Glob pattern." }) },
        { additionalProperties: false },
      ),
      risk: "low",
      effects: ["fs.read"],
      category: "read",
      mutates: false,
      ...(options.deferGlob ? { deferred: true } : {}),
      execute: async (args) => ok({ pattern: args.pattern, matches: [] }),
    }),
  ];
}
