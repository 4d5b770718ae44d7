/**
 * The worker of an {@link OffThreadWriter}: writes each batch it is sent through a JSONL store of
 * its own on the same file, then counts it written in the shared counter the calling thread waits
 * on. Batches arrive and are written in the order they were posted.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { AuditRecord } from "./audit.js";
import type { AuditStoreOptions } from "./audit-chain.js";

interface WriterData {
  readonly path: string;
  readonly options: AuditStoreOptions;
  readonly counts: Int32Array;
}

const { path, options, counts } = workerData as WriterData;

// An uncaught exception or a `process.exit` ends the thread through here, a failure to load the
// store's modules included (they are imported after this): the calling thread, which may be
// blocked waiting for a batch, learns of it at once.
process.on("exit", () => {
  Atomics.store(counts, 2, 1);
  Atomics.notify(counts, 0);
});

const { JsonlAuditStore } = await import("./audit-jsonl.js");
const store = new JsonlAuditStore(path, { ...options, offThread: false });
Atomics.store(counts, 3, 1);

parentPort?.on("message", (batch: AuditRecord[]) => {
  const failed = store.failures;
  store.writeNow(batch);
  Atomics.add(counts, 1, store.failures - failed);
  Atomics.add(counts, 0, 1);
  Atomics.notify(counts, 0);
});
