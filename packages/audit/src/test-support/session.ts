import {
  type AuditSink,
  createCatalog,
  createKernel,
  defineLayer,
  defineTool,
  fail,
  ok,
  type PermissionAnswer,
} from "@pablo/kernel";
import Type from "typebox";

const PathArgs = Type.Object(
  { path: Type.String({ description: "Absolute path." }) },
  { additionalProperties: false },
);

const write = defineTool({
  name: "test.write",
  description: "Pretends to write a file, slowly.",
  summary: "Write",
  inputSchema: PathArgs,
  risk: "high",
  effects: ["fs.write"],
  category: "write",
  mutates: true,
  accesses: (args) => [{ dimension: "fs.write", path: args.path, root: "workspace" }],
  execute: async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    return ok("written");
  },
});

const read = defineTool({
  name: "test.read",
  description: "Pretends to read a file; fails for a missing one.",
  summary: "Read",
  inputSchema: PathArgs,
  risk: "low",
  effects: ["fs.read"],
  category: "read",
  mutates: false,
  accesses: (args) => [{ dimension: "fs.read", path: args.path, root: "workspace" }],
  execute: async (args) => (args.path.endsWith("missing") ? fail("NOT_FOUND", "no such file") : ok("text")),
});

/** Records a small real session: reads, a failed read, prompted writes, a denied write. */
export async function recordSession(audit: AuditSink, sessionId = "s1"): Promise<void> {
  const broker = {
    request: async (): Promise<PermissionAnswer> => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return "allow-once";
    },
  };
  const session = createKernel({ audit, broker }).openSession({
    sessionId,
    catalog: createCatalog([write, read]),
    layers: [defineLayer({ id: "policy", "fs.write": { deny: [{ id: "no-etc", path: "/etc" }] } })],
  });
  await session.call({ tool: "test_read", args: { path: "/w/a.ts" } });
  await session.call({ tool: "test_read", args: { path: "/w/missing" } });
  await session.call({ tool: "test_write", args: { path: "/w/a.ts" } });
  await session.call({ tool: "test_write", args: { path: "/etc/passwd" } });
  await session.call({ tool: "test_write", args: { path: "/w/b.ts" } });
}
