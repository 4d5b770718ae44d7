import { defineTool, ErrorCode, fail, ok, type ToolResult } from "@pablo/kernel";
import Type from "typebox";
import type { FsEnv } from "../env.js";
import { byteOrder } from "../walk/order.js";
import { PathArg, thrownFailure } from "./common.js";
import { declare, openPath, planPath, shownPath } from "./plan.js";

export const DEFAULT_LIST_LIMIT = 500;
export const MAX_LIST_LIMIT = 10_000;

export const ListArgs = Type.Object(
  {
    path: Type.Optional(PathArg("The directory to list", '"."')),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, description: "Index of the first entry of the page (default 0)." }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LIST_LIMIT,
        description: `Most entries in the page (default ${DEFAULT_LIST_LIMIT}).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export function listTool(env: FsEnv) {
  return defineTool({
    name: "fs.list",
    summary: "List one directory's children deterministically",
    description:
      "Lists the direct children of one directory with their types (file, directory, symlink, fifo, socket, " +
      "char-device, block-device, unknown), in byte order of their names, paginated by `offset` and `limit`. " +
      "Links are listed as symlinks and never followed. Use fs.glob to find files in a whole tree.",
    inputSchema: ListArgs,
    risk: "low",
    effects: ["fs.read"],
    category: "read",
    mutates: false,
    async accesses(args, ctx) {
      const planned = await planPath(env, args.path ?? ".", "directory");
      return "ok" in planned ? planned : declare(env, ctx, planned, ["fs.read"]);
    },
    async execute(args, ctx): Promise<ToolResult> {
      const resolved = await openPath(env, ctx, args.path ?? ".", "directory");
      if ("ok" in resolved) return resolved;
      const shown = shownPath(resolved);
      try {
        if (resolved.leaf.type !== "directory") throw new Error("resolve returned a non-directory leaf");
        const entries = await env.io.list(resolved.leaf.handle);
        const quota = env.options.quotas.entries;
        if (quota !== undefined && entries.length > quota) {
          return fail(
            ErrorCode.LIMIT_EXCEEDED,
            `${shown} has ${entries.length} entries, over the ${quota}-entry quota`,
            { path: shown, quota: "entries", limit: quota, entries: entries.length },
          );
        }
        const offset = args.offset ?? 0;
        const limit = args.limit ?? DEFAULT_LIST_LIMIT;
        const page = byteOrder(entries).slice(offset, offset + limit);
        const next = offset + page.length;
        return ok({
          path: shown,
          root: resolved.root.kind,
          entries: page.map((e) => ({ name: e.name, type: e.type })),
          total: entries.length,
          offset,
          next_offset: next < entries.length ? next : null,
          end: next >= entries.length,
        });
      } catch (error) {
        return thrownFailure(error, shown);
      } finally {
        await resolved.release();
      }
    },
  });
}
