import {
  type AuthorityLayer,
  createCatalog,
  createKernel,
  defineLayer,
  defineTool,
  ok,
  type PermissionAnswer,
} from "@pablo/kernel";
import Type from "typebox";
import { describe, expect, it } from "vitest";
import { openAuditStore, replayStore } from "./index.js";
import { KINDS, storePath, tempDir } from "./test-support/stores.js";

const write = defineTool({
  name: "test.write",
  description: "Pretends to write a file.",
  summary: "Write",
  inputSchema: Type.Object(
    { path: Type.String({ description: "Absolute path." }) },
    { additionalProperties: false },
  ),
  risk: "high",
  effects: ["fs.write"],
  category: "write",
  mutates: true,
  accesses: (args) => [{ dimension: "fs.write", path: args.path, root: "workspace" }],
  execute: async () => ok("written"),
});

const read = defineTool({
  name: "test.read",
  description: "Pretends to read a file.",
  summary: "Read",
  inputSchema: Type.Object(
    { path: Type.String({ description: "Absolute path." }) },
    { additionalProperties: false },
  ),
  risk: "low",
  effects: ["fs.read"],
  category: "read",
  mutates: false,
  accesses: (args) => [{ dimension: "fs.read", path: args.path, root: "workspace" }],
  execute: async () => ok("read"),
});

const OLD: AuthorityLayer[] = [
  defineLayer({
    id: "policy",
    "fs.write": {
      allow: [
        { id: "src", path: "/w/src" },
        { id: "docs", path: "/w/docs" },
      ],
    },
  }),
];
const NEW: AuthorityLayer[] = [
  defineLayer({
    id: "policy",
    "fs.write": {
      allow: [
        { id: "src-and-tmp", path: "/w/src" },
        { id: "tmp", path: "/w/tmp" },
      ],
    },
    tool: { deny: [{ id: "no-reads", match: "test.read" }] },
  }),
];

class Broker {
  request(): Promise<PermissionAnswer> {
    return Promise.resolve("allow-once");
  }
}

describe.each(KINDS)("what-if replay over the %s store", (kind) => {
  it("lists calls now denied, now allowed and decided by another rule; runs and writes nothing", async () => {
    const path = storePath(tempDir(), kind);
    const store = openAuditStore({ kind, path });
    const session = createKernel({ audit: store, broker: new Broker() }).openSession({
      sessionId: "s1",
      catalog: createCatalog([write, read]),
      layers: OLD,
      permission: { mode: "accept-edits" },
    });
    await session.call({ tool: "test_write", args: { path: "/w/docs/a.md" }, callId: "docs" });
    await session.call({ tool: "test_write", args: { path: "/w/tmp/x" }, callId: "tmp" });
    await session.call({ tool: "test_write", args: { path: "/w/src/a.ts" }, callId: "src" });
    await session.call({ tool: "test_read", args: { path: "/w/src/a.ts" }, callId: "read" });
    await session.call({ tool: "test_write", args: { nope: 1 }, callId: "bad-args" });
    const before = await store.verify();

    const report = await replayStore(store, NEW);
    expect(report.changes.map((c) => [c.callId, c.kind, `${c.after.layer}/${c.after.rule}`])).toEqual([
      ["docs", "now-denied", "policy/default"],
      ["tmp", "now-allowed", "policy/tmp"],
      ["src", "rule-changed", "policy/src-and-tmp"],
      ["read", "now-denied", "policy/no-reads"],
    ]);
    expect(report).toMatchObject({ total: 5, unchanged: 1, undetermined: [] });
    expect((await replayStore(store, OLD)).changes).toEqual([]);
    expect((await replayStore(store, NEW, { sessionId: "other" })).total).toBe(0);
    expect(await store.verify()).toEqual(before);
    await store.close();
  });

  it("says which calls it cannot decide again when the store keeps no accesses", async () => {
    const path = storePath(tempDir(), kind);
    const store = openAuditStore({ kind, path, accesses: "none" });
    const session = createKernel({ audit: store }).openSession({
      catalog: createCatalog([read]),
      layers: OLD,
    });
    await session.call({ tool: "test_read", args: { path: "/w/a" }, callId: "r" });
    const report = await replayStore(store, NEW);
    // The tool itself is now denied: that much is known without the accesses.
    expect(report.changes.map((c) => c.kind)).toEqual(["now-denied"]);
    const lenient = await replayStore(store, [defineLayer({ id: "policy" })]);
    expect(lenient.undetermined.map((u) => [u.callId, u.reason])).toEqual([
      ["r", "the record keeps no declared accesses for this call"],
    ]);
    await store.close();
  });
});
