import { describe, expect, it } from "vitest";
import { createCatalog, createKernel, MemoryAuditSink } from "./index.js";
import { echoTool } from "./test-support/tools.js";

describe("call IDs", () => {
  it("have one format, call_<session>_<n>, for dispatched calls and host refusals alike", async () => {
    const audit = new MemoryAuditSink();
    const kernel = createKernel({ audit });
    const session = kernel.openSession({ catalog: createCatalog([echoTool()]) });
    await session.call({ tool: "test_echo", args: { text: "a" } });
    await session.recordRefusal(
      { tool: "test_echo", args: { text: "b" } },
      { code: "TOOL_DENIED", message: "not now", rule: "host.batch" },
    );
    await session.call({ tool: "nope", args: {} });
    const ids = audit.records.map((r) => r.callId);
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{8}_\d+$/);
    const prefix = ids[0]?.replace(/\d+$/, "");
    expect(ids).toEqual([`${prefix}1`, `${prefix}2`, `${prefix}3`]);

    const other = kernel.openSession({ catalog: createCatalog([echoTool()]) });
    const { audit: record } = await other.call({ tool: "test_echo", args: { text: "c" } });
    expect(record.callId).not.toBe(ids[0]);
  });

  it("keep the host's own ID when it gives one", async () => {
    const session = createKernel().openSession({ catalog: createCatalog([echoTool()]) });
    const { audit } = await session.call({ tool: "test_echo", args: { text: "a" }, callId: "toolu_01" });
    expect(audit.callId).toBe("toolu_01");
  });
});
