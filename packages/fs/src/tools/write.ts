import { defineTool, type ToolResult } from "@pablo/kernel";
import Type from "typebox";
import type { FsEnv } from "../env.js";
import { PathArg, scratchSentence } from "./common.js";
import { onDemand } from "./on-demand.js";
import { declare, planPath, refuseProtected } from "./plan.js";

/** A SHA-256 revision as the fs tools return it. */
export function revision(description: string) {
  return Type.String({ pattern: "^[0-9a-f]{64}$", description });
}

export function writeArgs(tracked: boolean) {
  return Type.Object(
    {
      path: PathArg("The file to create or replace"),
      content: Type.String({ description: "The complete new content, as UTF-8 text." }),
      expected_revision: Type.Optional(
        Type.Union(
          [revision("A revision exactly as fs.read, fs.write or fs.edit returned it."), Type.Null()],
          {
            description:
              "null: create the file only if it does not exist. A revision: replace the file only if it still has " +
              "that revision. " +
              (tracked
                ? "Omit it to replace a file this session has read and that has not changed since."
                : "Required."),
          },
        ),
      ),
    },
    { additionalProperties: false },
  );
}

export function writeTool(env: FsEnv) {
  return defineTool({
    name: "fs.write",
    summary: "Create or replace a file, checked against its revision",
    description:
      "Creates a file (`expected_revision: null`, only if absent) or replaces one (the revision fs.read " +
      "returned; a stale revision fails with REVISION_CONFLICT and the current revision). The complete content " +
      "is written to a temporary file beside the target and installed atomically: the file has either its old " +
      "bytes or all of the new ones. Missing parent directories are created. `.git`, `.pablo` and other " +
      "protected components are refused. Workspace changes return a review record that the user can roll back." +
      scratchSentence(env, true),
    inputSchema: writeArgs(env.options.revisions === "tracked"),
    risk: "high",
    effects: ["fs.write"],
    category: "write",
    mutates: true,
    async accesses(args, ctx) {
      const planned = await planPath(env, args.path, "writable");
      if ("ok" in planned) return planned;
      return refuseProtected(env, planned) ?? declare(env, ctx, planned, ["fs.write"]);
    },
    async execute(args, ctx): Promise<ToolResult> {
      const outcome = await (await onDemand.mutate()).mutate(env, ctx, {
        path: args.path,
        operation: "write",
        expected: args.expected_revision,
        produce: () => Buffer.from(args.content, "utf8"),
      });
      return outcome.result;
    },
  });
}
