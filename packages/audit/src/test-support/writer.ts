import { writeSync } from "node:fs";
import { openAuditStore } from "../index.js";
import { sampleRecord } from "./records.js";

/**
 * A child process that appends records as fast as it can and prints `ack <callId>` after each
 * append returns: `writer.ts KIND PATH NAME COUNT` (COUNT 0 runs until killed).
 */
const [kind, path, name, count] = process.argv.slice(2);
const store = openAuditStore({ kind: kind === "sqlite" ? "sqlite" : "jsonl", path: path as string });
const limit = Number(count) || Number.POSITIVE_INFINITY;
for (let i = 0; i < limit; i++) {
  const record = sampleRecord(i, {
    sessionId: name as string,
    callId: `${name}-${i}`,
    argsPreview: "x".repeat(i % 7 === 0 ? 9000 : 40),
  });
  store.append(record);
  writeSync(1, `ack ${record.callId}\n`);
}
await store.close();
