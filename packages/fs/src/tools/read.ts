import { defineTool, ErrorCode, fail, ok, type ToolResult } from "@pablo/kernel";
import Type from "typebox";
import { snapshot } from "../content.js";
import type { FsEnv } from "../env.js";
import { PAGE_MARGIN, pageBounds } from "../page.js";
import { firstInvalidUtf8, isValidUtf8 } from "../utf8.js";
import { Yielder } from "../yielder.js";
import { PathArg, scratchSentence, thrownFailure } from "./common.js";
import { declare, openPath, planPath, shownPath } from "./plan.js";
import { rememberRevision } from "./revisions.js";

export const DEFAULT_READ_LIMIT = 128 * 1024;
export const MAX_READ_LIMIT = 1024 * 1024;

export const ReadArgs = Type.Object(
  {
    path: PathArg("The file to read"),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Byte offset where the page starts (default 0). An offset inside a multi-byte character starts the page at that character.",
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_READ_LIMIT,
        description: `Most bytes in the page (default ${DEFAULT_READ_LIMIT}). The page ends before any character it would split.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export function readTool(env: FsEnv) {
  return defineTool({
    name: "fs.read",
    summary: "Read a bounded UTF-8 page of a file and its revision",
    description:
      "Reads a page of UTF-8 text from a regular file by byte offset and limit. The result has the page " +
      "(`content`), the file `size`, the page's real `offset` and `bytes`, `next_offset` (null at the end), " +
      "`end`, and `revision`: the SHA-256 of the whole file, which fs.write and fs.edit need to change it. " +
      "Paths are relative to the workspace, or absolute inside the workspace or the session scratch directory. " +
      "Directories are refused (use fs.list or fs.glob); text that is not UTF-8 is refused with INVALID_UTF8." +
      scratchSentence(env, false),
    inputSchema: ReadArgs,
    risk: "low",
    effects: ["fs.read"],
    category: "read",
    mutates: false,
    async accesses(args, ctx) {
      const planned = await planPath(env, args.path, "file");
      return "ok" in planned ? planned : declare(env, ctx, planned, ["fs.read"]);
    },
    async execute(args, ctx): Promise<ToolResult> {
      const resolved = await openPath(env, ctx, args.path, "file");
      if ("ok" in resolved) return resolved;
      try {
        if (resolved.leaf.type !== "file") throw new Error("resolve returned a non-file leaf");
        const shown = shownPath(resolved);
        const quota = env.options.quotas.file_bytes;
        if (quota !== undefined && resolved.leaf.info.size > quota) {
          return fail(
            ErrorCode.LIMIT_EXCEEDED,
            `${shown} has ${resolved.leaf.info.size} bytes, over the ${quota}-byte file quota`,
            {
              path: shown,
              size: resolved.leaf.info.size,
              quota: "file_bytes",
              limit: quota,
            },
          );
        }
        const offset = args.offset ?? 0;
        const limit = args.limit ?? DEFAULT_READ_LIMIT;
        const windowStart = Math.max(0, offset - PAGE_MARGIN);
        const snap = await snapshot(
          env.io,
          resolved.leaf.handle,
          { window: { start: windowStart, end: offset + limit + PAGE_MARGIN } },
          new Yielder(ctx.signal),
        );
        if (offset > snap.size) {
          return fail(
            ErrorCode.INVALID_ARGUMENT,
            `offset ${offset} is past the end of ${shown} (${snap.size} bytes)`,
            {
              path: shown,
              size: snap.size,
            },
          );
        }
        const window = snap.window ?? new Uint8Array(0);
        const at = (position: number) => window[position - windowStart];
        const { start, end } = pageBounds(at, snap.size, offset, limit);
        const page = Buffer.from(window.buffer, window.byteOffset + start - windowStart, end - start);
        if (!isValidUtf8(page)) {
          const bad = start + firstInvalidUtf8(page);
          return fail(
            ErrorCode.INVALID_UTF8,
            `${shown} is not UTF-8 text: invalid byte sequence at offset ${bad}`,
            {
              path: shown,
              offset: bad,
              revision: snap.revision,
            },
          );
        }
        rememberRevision(ctx, resolved.canonical, snap.revision);
        return ok({
          path: shown,
          root: resolved.root.kind,
          size: snap.size,
          offset: start,
          bytes: end - start,
          next_offset: end < snap.size ? end : null,
          end: end >= snap.size,
          revision: snap.revision,
          content: page.toString("utf8"),
        });
      } catch (error) {
        return thrownFailure(error, shownPath(resolved));
      } finally {
        await resolved.release();
      }
    },
  });
}
