import type { TaskEnvironment } from "../distribution.js";
import { Exit } from "../exit-codes.js";
import { type Io, printJson, table } from "../output.js";
import { allReviewStores } from "../storage.js";

/** `pablo review list`: every review snapshot recorded for file changes, newest last. */
export function reviewListCommand(io: Io, task: TaskEnvironment, options: { json: boolean }): number {
  const changes = allReviewStores(task.storage).flatMap((store) => store.list());
  if (options.json) {
    printJson(io, { changes });
    return Exit.OK;
  }
  if (changes.length === 0) {
    io.stdout("no review snapshots\n");
    return Exit.OK;
  }
  const rows = changes.map((c) => [
    c.snapshotId,
    c.state,
    c.status,
    `+${c.additions} -${c.deletions}`,
    c.path,
  ]);
  io.stdout(`${table([["ID", "STATE", "STATUS", "LINES", "PATH"], ...rows])}\n`);
  return Exit.OK;
}

/** `pablo review rollback ID`: restores the captured bytes when the file still hashes to the post-tool hash. */
export async function reviewRollbackCommand(
  io: Io,
  task: TaskEnvironment,
  options: { id: string; json: boolean },
): Promise<number> {
  const stores = allReviewStores(task.storage);
  const owner = stores.find((store) => store.get(options.id) !== undefined) ?? stores[0];
  const result = await (owner as (typeof stores)[number]).rollback(options.id);
  if (options.json) printJson(io, result);
  else if (result.ok) io.stdout(`rolled back ${options.id}\n`);
  else io.stderr(`pablo: ${result.error.message} [${result.error.code}]\n`);
  return result.ok ? Exit.OK : Exit.FAILED;
}
