import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCatalog, createKernel, defineLayer, MemoryAuditSink } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { createActionsProvider } from "./actions-provider.js";
import { checkActions } from "./check-actions.js";
import { SIGNING_KEY, useCatalogDir } from "./test-support/catalog-fixture.js";

const CATALOG = `
actions:
  - name: host_snapshot
    description: Read uptime and memory in separate steps.
    risk: read
    params: {}
    steps:
      - name: uptime
        exec: [/usr/bin/uptime]
      - name: memory
        exec: [/usr/bin/free, -m]
    on_error: continue
    timeout: 10s
    max_output: 64KB
    filters: [head, count]
    redact:
      builtin: [secrets]
  - name: print_secret
    description: Prints a fake key.
    risk: read
    exec: [/usr/bin/printf, "key AKIAIOSFODNN7EXAMPLE\\n"]
    redact: { builtin: [secrets] }
  - name: elsewhere
    description: Needs a tool this host lacks.
    risk: medium
    exec: [/opt/not-installed/tool]
    exec_fallbacks: [/opt/also-missing/tool]
`;

function provider() {
  const dir = useCatalogDir();
  dir.signed(CATALOG);
  writeFileSync(join(dir.dir, "trusted.pem"), SIGNING_KEY.publicKeyPem);
  return createActionsProvider({ catalogs: ["catalog.yaml"], trusted_keys: ["trusted.pem"] }, dir.dir);
}

describe("the actions provider", () => {
  it("contributes one tool per verified action, named action.NAME", () => {
    const { tools, diagnostics } = provider();
    expect(diagnostics).toEqual([]);
    expect(tools.map((t) => [t.name, t.providerName, t.risk, t.mutates])).toEqual([
      ["action.host_snapshot", "action_host_snapshot", "low", false],
      ["action.print_secret", "action_print_secret", "low", false],
      ["action.elsewhere", "action_elsewhere", "medium", true],
    ]);
  });

  it("runs through the kernel: closed schema, redacted output, nothing unredacted in the audit record", async () => {
    const { tools } = provider();
    const audit = new MemoryAuditSink();
    const session = createKernel({ audit }).openSession({
      catalog: createCatalog(tools),
      permission: { mode: "auto" },
    });
    const bad = await session.call({ tool: "action_host_snapshot", args: { params: {}, tail: 1 } });
    expect(bad.result).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
    const { result } = await session.call({ tool: "action_print_secret", args: {} });
    expect(JSON.stringify(result)).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect(result).toMatchObject({ ok: true, data: { steps: [{ stdout: "key [REDACTED]\n" }] } });
    expect(JSON.stringify(audit.records)).not.toContain("AKIAIOSFODNN7EXAMPLE");
  });

  it("is decided by the kernel's layers like any other tool", async () => {
    const { tools } = provider();
    // The executable the action declares is what a deployment's executable rules see.
    const layer = defineLayer({
      id: "deployment",
      executable: { deny: [{ id: "no-printf", path: "/usr/bin/printf" }] },
    });
    const session = createKernel().openSession({
      catalog: createCatalog(tools),
      layers: [layer],
      permission: { mode: "auto" },
    });
    const { result } = await session.call({ tool: "action_print_secret", args: {} });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect((await session.call({ tool: "action_host_snapshot", args: {} })).result).toMatchObject({
      ok: true,
    });
  });

  it("reports per action what this host does not support", async () => {
    const { actions } = provider();
    expect(await checkActions(actions)).toEqual([
      { action: "host_snapshot", supported: true, unsupported: [], warnings: [] },
      { action: "print_secret", supported: true, unsupported: [], warnings: [] },
      {
        action: "elsewhere",
        supported: false,
        unsupported: ["step main: missing executable /opt/not-installed/tool, /opt/also-missing/tool"],
        warnings: [],
      },
    ]);
  });
});
