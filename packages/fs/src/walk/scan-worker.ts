import type { BatchScan, ScanRequest, ScanStatus } from "../port/types.js";
import { findLines, LINE_FUNCTIONS, literalNeedle } from "./lines.js";

export interface ScanJob extends ScanRequest {
  readonly id: number;
  readonly dir: number;
  readonly names: readonly string[];
}

/**
 * The source text of a search worker: the line functions of `lines.ts` and {@link workerMain}.
 * Evaluated rather than loaded from a file, so built JavaScript, a bundle of it and the TypeScript
 * sources under test start the very same worker.
 */
export function workerSource(): string {
  // Transpilers that keep function names (esbuild, tsx) wrap functions in a `__name` helper that
  // would not exist in the worker.
  const shim = "var __name = (target) => target;";
  // A bundler may rename the functions (and keep their old `name`), so the entry points are passed
  // as expressions of their own source text rather than by name; `require` is passed in too, because
  // a bundler rewrites a free `require(...)` into a helper of its own that the worker does not have.
  const entry = `(${workerMain})((${findLines}), (${literalNeedle}), require);`;
  return `"use strict";\n${shim}\n${LINE_FUNCTIONS.map(String).join("\n")}\n${entry}\n`;
}

/**
 * A search worker thread: scans batches of files of one directory, opening each name relative to
 * the directory's descriptor (shared with the main thread, which keeps it open until the batch is
 * answered) exactly as the local port opens files: no link followed, never blocking, checked with
 * fstat. Runs only inside the worker, so it may use nothing but its arguments and globals.
 */
function workerMain(find: typeof findLines, prepare: typeof literalNeedle, load: NodeJS.Require): void {
  const { isUtf8 } = load("node:buffer") as typeof import("node:buffer");
  const fs = load("node:fs") as typeof import("node:fs");
  const { parentPort } = load("node:worker_threads") as typeof import("node:worker_threads");
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let buffer = Buffer.allocUnsafe(64 * 1024);

  // One needle per query, kept across batches so what it learned about the data carries over.
  let needle = prepare(Buffer.alloc(1));
  let query = "";
  const scan = (job: ScanJob): BatchScan => {
    if (job.query !== query) {
      query = job.query;
      needle = prepare(Buffer.from(query, "utf8"));
    }
    const out: {
      statuses: ScanStatus[];
      bytes: number[];
      found: BatchScan["found"];
      errors: BatchScan["errors"];
    } = {
      statuses: [],
      bytes: [],
      found: [],
      errors: [],
    };
    job.names.forEach((name, index) => {
      let read = 0;
      let status: ScanStatus = 0;
      let fd = -1;
      try {
        fd = fs.openSync(`/proc/self/fd/${job.dir}/${name}`, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
        const stats = fs.fstatSync(fd);
        if (!stats.isFile()) status = 2;
        else if (job.fileBytes !== undefined && stats.size > job.fileBytes) status = 4;
        else if (stats.size > job.largeBytes) status = 5;
        else {
          if (buffer.length < stats.size)
            buffer = Buffer.allocUnsafe(Math.max(stats.size, buffer.length * 2));
          while (read < stats.size) {
            const n = fs.readSync(fd, buffer, read, stats.size - read, read);
            if (n === 0) break;
            read += n;
          }
          const chunk = buffer.subarray(0, read);
          const lines = find(chunk, needle, 0, job.maxLines, false);
          if (lines.matches.length > 0) {
            // Binary only matters for a file that matched.
            const binary = chunk.includes(0) || !isUtf8(chunk);
            out.found.push({ index, binary, matches: binary ? [] : lines.matches });
          }
        }
      } catch (error) {
        const code = (error as { code?: string }).code ?? "EIO";
        status = code === "ELOOP" ? 1 : code === "ENXIO" ? 2 : code === "ENOENT" ? 3 : 6;
        if (status === 6) out.errors.push({ index, code, message: (error as Error).message });
      } finally {
        if (fd >= 0) fs.closeSync(fd);
      }
      out.statuses.push(status);
      out.bytes.push(read);
    });
    return out;
  };

  // Batches come several to a message and are answered with one.
  parentPort?.on("message", (jobs: ScanJob[]) =>
    parentPort.postMessage(jobs.map((job) => ({ id: job.id, result: scan(job) }))),
  );
}
