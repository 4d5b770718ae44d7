import { defineTool, ErrorCode, fail, type ToolFailure, type ToolResult } from "@pablo/kernel";
import Type from "typebox";
import type { FsEnv } from "../env.js";
import { firstInvalidUtf8, isValidUtf8 } from "../utf8.js";
import { PathArg, scratchSentence } from "./common.js";
import { onDemand } from "./on-demand.js";
import { declare, planPath, refuseProtected } from "./plan.js";
import { countFailedEdit } from "./revisions.js";
import { revision } from "./write.js";

export function editArgs(tracked: boolean) {
  return Type.Object(
    {
      path: PathArg("The file to edit"),
      old_string: Type.String({
        minLength: 1,
        description:
          "Exact text to replace; it must occur exactly once in the file. Copy it from fs.read output.",
      }),
      new_string: Type.String({ description: "Text to put in its place." }),
      expected_revision: Type.Optional(
        revision(
          tracked
            ? "The file's revision; omit it for a file this session read and that has not changed since."
            : "The file's revision from fs.read. Required.",
        ),
      ),
    },
    { additionalProperties: false },
  );
}

export function editTool(env: FsEnv) {
  return defineTool({
    name: "fs.edit",
    summary: "Replace one exact text match in a file at a known revision",
    description:
      "Replaces the single exact, literal occurrence of `old_string` with `new_string` in a UTF-8 file at the " +
      "given revision, installed atomically like fs.write. No occurrence or several fail with the count: read " +
      "the file again and retry once with more context. A second failed edit of the same file in one user prompt " +
      "ends the turn so the mismatch can be reported instead of repaired in a loop." +
      scratchSentence(env, true),
    inputSchema: editArgs(env.options.revisions === "tracked"),
    risk: "high",
    effects: ["fs.write"],
    category: "write",
    mutates: true,
    async accesses(args, ctx) {
      const planned = await planPath(env, args.path, "file");
      if ("ok" in planned) return planned;
      return refuseProtected(env, planned) ?? declare(env, ctx, planned, ["fs.read", "fs.write"]);
    },
    async execute(args, ctx): Promise<ToolResult> {
      if (args.old_string === args.new_string) {
        return fail(
          ErrorCode.INVALID_ARGUMENT,
          "old_string and new_string are identical; nothing would change",
        );
      }
      const outcome = await (await onDemand.mutate()).mutate(env, ctx, {
        path: args.path,
        operation: "edit",
        expected: args.expected_revision,
        produce: (current, shown) => replaceOnce(current, shown, args.old_string, args.new_string),
      });
      const { result } = outcome;
      if (result.ok || !outcome.countable || outcome.canonical === undefined) return result;
      const attempt = countFailedEdit(ctx, outcome.canonical);
      const kind = result.error.code === ErrorCode.REVISION_CONFLICT ? "revision" : "match";
      const details = { ...result.error.details, mutationFailureKind: kind, mutationFailureAttempt: attempt };
      const notes = { mutationFailureKind: kind, mutationFailureAttempt: attempt, terminate: attempt >= 2 };
      if (attempt < 2)
        return { ...fail(result.error.code, result.error.message, details), auditNotes: notes };
      return {
        ...fail(
          result.error.code,
          `${result.error.message}. This is the second failed edit of this file in this prompt: stop and report the exact mismatch instead of retrying.`,
          details,
          { terminate: true },
        ),
        auditNotes: notes,
      };
    },
  });
}

function replaceOnce(
  current: Uint8Array | null,
  shown: string,
  oldString: string,
  newString: string,
): Uint8Array | ToolFailure {
  if (current === null) return fail(ErrorCode.NOT_FOUND, `${shown} does not exist`, { path: shown });
  if (!isValidUtf8(current)) {
    return fail(
      ErrorCode.INVALID_UTF8,
      `${shown} is not UTF-8 text (invalid byte at offset ${firstInvalidUtf8(current)})`,
      {
        path: shown,
      },
    );
  }
  const text = Buffer.from(current).toString("utf8");
  const first = text.indexOf(oldString);
  let matches = first < 0 ? 0 : 1;
  for (
    let at = text.indexOf(oldString, first + 1);
    first >= 0 && at >= 0 && matches < 1000;
    at = text.indexOf(oldString, at + 1)
  ) {
    matches++;
  }
  if (matches !== 1) {
    const message =
      matches === 0
        ? `old_string was not found in ${shown}`
        : `old_string occurs ${matches >= 1000 ? "1000 or more" : matches} times in ${shown}; it must occur exactly once`;
    return fail(
      ErrorCode.TOOL_FAILED,
      `${message}. Read the file again with fs.read and retry with text copied exactly, with enough context to be unique.`,
      {
        path: shown,
        matches,
      },
    );
  }
  return Buffer.from(text.slice(0, first) + newString + text.slice(first + oldString.length), "utf8");
}
