import type { BatchScan, ScanRequest, ScanStatus } from "../port/types.js";
import { findLines, LINE_FUNCTIONS, literalNeedle } from "./lines.js";

export interface ScanJob extends ScanRequest {
  readonly id: number;
  readonly dir: number;
  readonly names: readonly string[];
  /**
   * Who scans the batch, decided once by compare-and-swap on this shared word: 0 nobody yet, then
   * {@link CLAIM_WORKER}, {@link CLAIM_HERE} or {@link CLAIM_DROPPED}. Every worker receives every
   * batch and the main thread may take one too; only the claimant touches the directory.
   */
  readonly claim: Int32Array;
}

export const CLAIM_WORKER = 1;
export const CLAIM_HERE = 2;
export const CLAIM_DROPPED = 3;

/** The modules a scanner reads files with: passed in, because a worker's scanner has no imports. */
export interface ScanModules {
  readonly fs: typeof import("node:fs");
  readonly isUtf8: (input: Uint8Array) => boolean;
}

/** Scans file `index` of a batch into `out`; each scanner keeps its own read buffer and needle. */
export type FileScanner = (job: ScanJob, index: number, out: BatchScan) => void;

/**
 * The source text of a search worker: the line functions of `lines.ts`, {@link fileScanner} and
 * {@link workerMain}. Evaluated rather than loaded from a file, so built JavaScript, a bundle of it
 * and the TypeScript sources under test start the very same worker.
 */
export function workerSource(): string {
  // Transpilers that keep function names (esbuild, tsx) wrap functions in a `__name` helper that
  // would not exist in the worker.
  const shim = "var __name = (target) => target;";
  // A bundler may rename the functions (and keep their old `name`), so the entry points are passed
  // as expressions of their own source text rather than by name; `require` is called in the source
  // text, because a bundler rewrites a free `require(...)` into a helper the worker does not have.
  const modules = `{ fs: require("node:fs"), isUtf8: require("node:buffer").isUtf8 }`;
  const scanner = `(${fileScanner})((${findLines}), (${literalNeedle}), ${modules})`;
  const entry = `(${workerMain})(${scanner}, require("node:worker_threads").parentPort, ${CLAIM_WORKER});`;
  return `"use strict";\n${shim}\n${LINE_FUNCTIONS.map(String).join("\n")}\n${entry}\n`;
}

/** An empty answer for a batch, filled file by file. */
export function emptyScan(): BatchScan {
  return { statuses: [], bytes: [], found: [], errors: [] };
}

/**
 * Returns a scanner of single files of a batch, opening each name relative to the batch's directory
 * descriptor (held open by the main thread until the batch is answered) exactly as the local port
 * opens files: no link followed, never blocking, checked with fstat. The main thread and the
 * workers run this same function, so it may use nothing but its arguments and globals.
 */
export function fileScanner(
  find: typeof findLines,
  prepare: typeof literalNeedle,
  modules: ScanModules,
): FileScanner {
  const { fs, isUtf8 } = modules;
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let buffer = Buffer.allocUnsafe(64 * 1024);
  // One needle per query, kept across batches so what it learned about the data carries over.
  let needle = prepare(Buffer.alloc(1));
  let query = "";
  return (job, index, out) => {
    if (job.query !== query) {
      query = job.query;
      needle = prepare(Buffer.from(query, "utf8"));
    }
    let read = 0;
    let status: ScanStatus = 0;
    let fd = -1;
    try {
      fd = fs.openSync(`/proc/self/fd/${job.dir}/${job.names[index]}`, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      const stats = fs.fstatSync(fd);
      if (!stats.isFile()) status = 2;
      else if (job.fileBytes !== undefined && stats.size > job.fileBytes) status = 4;
      else if (stats.size > job.largeBytes) status = 5;
      else {
        if (buffer.length < stats.size) buffer = Buffer.allocUnsafe(Math.max(stats.size, buffer.length * 2));
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
  };
}

/**
 * A search worker thread: every batch is posted to every worker as it is made; a worker scans
 * those it claims first, in order, and answers them together once its inbox is empty (or after
 * {@link REPLY_FILES} files), so the main thread pays one message for many batches.
 */
function workerMain(
  scanFile: FileScanner,
  port: import("node:worker_threads").MessagePort,
  mine: number,
): void {
  const REPLY_FILES = 512;
  let answers: { id: number; result: BatchScan }[] = [];
  let files = 0;
  let scheduled = false;
  const reply = () => {
    if (answers.length === 0) return;
    port.postMessage(answers);
    answers = [];
    files = 0;
  };
  const replyLater = () => {
    scheduled = false;
    reply();
  };
  port.on("message", (job: ScanJob) => {
    if (Atomics.compareExchange(job.claim, 0, 0, mine) !== 0) return;
    const out: BatchScan = { statuses: [], bytes: [], found: [], errors: [] };
    for (let i = 0; i < job.names.length; i++) scanFile(job, i, out);
    answers.push({ id: job.id, result: out });
    files += job.names.length;
    if (files >= REPLY_FILES) reply();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(replyLater);
    }
  });
}
