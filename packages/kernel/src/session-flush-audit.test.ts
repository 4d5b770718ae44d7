import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { type AuditSink, createCatalog, createKernel } from "./index.js";
import { JsonlAuditStore } from "./node.js";
import { echoTool } from "./test-support/tools.js";

function storedCallIds(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => (JSON.parse(line) as { callId: string }).callId);
}

describe("Session.flushAudit", () => {
  it("writes the batching store's queued records before the turn ends", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pablo-session-flush-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "audit.jsonl");
    const store = new JsonlAuditStore(path);
    onTestFinished(() => store.close());
    const session = createKernel({ audit: store }).openSession({
      catalog: createCatalog([echoTool()]),
      permission: { mode: "auto" },
    });
    await session.call({ tool: "test_echo", args: { text: "a" }, callId: "c1" });
    await session.call({ tool: "test_echo", args: { text: "b" }, callId: "c2" });
    // Still this turn of the event loop: the store has queued both records, written neither.
    expect(storedCallIds(path)).toEqual([]);
    await session.flushAudit();
    expect(storedCallIds(path)).toEqual(["c1", "c2"]);
  });

  it("resolves with no sink, a sink without flush and a sink whose flush breaks its contract", async () => {
    const catalog = createCatalog([echoTool()]);
    const throwing: AuditSink = {
      write: () => undefined,
      flush: () => {
        throw new Error("broken sink");
      },
    };
    const rejecting: AuditSink = { write: () => undefined, flush: () => Promise.reject(new Error("broken")) };
    for (const audit of [undefined, { write: () => undefined }, throwing, rejecting]) {
      const session = createKernel(audit ? { audit } : {}).openSession({ catalog });
      await expect(session.flushAudit()).resolves.toBeUndefined();
    }
  });
});
