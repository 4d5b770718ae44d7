import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AuthorityLayer, createCatalog, createKernel, defineTool } from "@pablo/kernel";
import { inertTool } from "@pablo/test-support";
import fc from "fast-check";
import Type from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { deploymentLayer, flagsLayer, loadJsonPolicy } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "pablo-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tool = (name: string, effects: string[]) => inertTool(name, { effects });
const catalog = createCatalog([
  tool("fs.read", ["fs.read"]),
  tool("fs.write", ["fs.write"]),
  tool("shell.run", ["process"]),
  tool("web.fetch", ["net"]),
  tool("mcp/records/read", ["mcp"]),
]);
const visible = (layers: AuthorityLayer[]) =>
  createKernel()
    .openSession({ catalog, layers })
    .visibleTools()
    .map((t) => t.name);

describe("flags layer", () => {
  it("denies writes without --allow-write, processes with --no-shell and files with --no-filesystem", () => {
    expect(visible([flagsLayer({ allowWrite: false, noShell: false, noFilesystem: false })])).toEqual([
      "fs.read",
      "shell.run",
      "web.fetch",
      "mcp/records/read",
    ]);
    expect(visible([flagsLayer({ allowWrite: true, noShell: true, noFilesystem: false })])).toEqual([
      "fs.read",
      "fs.write",
      "web.fetch",
      "mcp/records/read",
    ]);
    expect(visible([flagsLayer({ allowWrite: true, noShell: false, noFilesystem: true })])).toEqual([
      "shell.run",
      "web.fetch",
      "mcp/records/read",
    ]);
  });

  it("cannot override a denied write root with --allow-write", () => {
    const deployment = deploymentLayer({ "fs.write": { deny: [{ id: "no-etc", path: "/etc" }] } }, undefined);
    const session = createKernel().openSession({
      catalog: createCatalog([
        defineTool({
          ...tool("fs.write", ["fs.write"]),
          inputSchema: Type.Object({ path: Type.String() }, { additionalProperties: false }),
          accesses: (a) => [{ dimension: "fs.write", path: a.path }],
        }),
      ]),
      layers: [deployment, flagsLayer({ allowWrite: true, noShell: false, noFilesystem: false })],
      permission: { mode: "auto" },
    });
    return session.call({ tool: "fs_write", args: { path: "/etc/passwd" } }).then(({ decision }) => {
      expect(decision).toMatchObject({ verdict: "deny", layer: "deployment", rule: "no-etc" });
    });
  });
});

describe("static JSON policy", () => {
  it("loads exact tool, launcher and root rules with stable IDs, resolving relative roots", () => {
    const file = join(dir, "policy.json");
    writeFileSync(
      file,
      JSON.stringify({
        id: "legacy",
        tools: { deny: [{ id: "legacy.no-shell", name: "shell.run" }] },
        launchers: { allow: [{ id: "legacy.sh", path: "/bin/sh" }] },
        write_roots: { allow: [{ id: "legacy.out", path: "out" }] },
      }),
    );
    const result = loadJsonPolicy(file);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.value.tool?.deny).toEqual([{ id: "legacy.no-shell", match: "shell.run" }]);
    expect(result.value["fs.write"]?.allow).toEqual([{ id: "legacy.out", path: join(dir, "out") }]);
    expect(visible([result.value])).not.toContain("shell.run");
  });

  it("refuses wildcards, unknown keys and bad JSON with the policy error code", () => {
    const cases = [
      { tools: { allow: [{ id: "x", name: "fs.*" }] } },
      { tool: { allow: [] } },
      "{not json",
      {
        tools: {
          deny: [
            { id: "dup", name: "a" },
            { id: "dup", name: "b" },
          ],
        },
      },
    ];
    for (const [i, body] of cases.entries()) {
      const file = join(dir, `bad-${i}.json`);
      writeFileSync(file, typeof body === "string" ? body : JSON.stringify(body));
      const result = loadJsonPolicy(file);
      expect(result.ok, String(i)).toBe(false);
      if (!result.ok) expect(result.errors[0]?.code).toBe("CONFIG_POLICY");
    }
  });
});

describe("narrowing property", () => {
  it("adding any flag or policy file never widens the effective catalog", () => {
    const flags = fc.record({ allowWrite: fc.boolean(), noShell: fc.boolean(), noFilesystem: fc.boolean() });
    const names = ["fs.read", "fs.write", "shell.run", "web.fetch", "mcp/records/read", "*", "fs.*"];
    const policyLayer = fc
      .record({
        default: fc.constantFrom("allow" as const, "deny" as const),
        allow: fc.array(fc.constantFrom(...names), { maxLength: 3 }),
        deny: fc.array(fc.constantFrom(...names), { maxLength: 2 }),
      })
      .map(
        (p): AuthorityLayer => ({
          id: "policy-file",
          tool: {
            default: p.default,
            allow: p.allow.map((match, i) => ({ id: `a${i}`, match })),
            deny: p.deny.map((match, i) => ({ id: `d${i}`, match })),
          },
        }),
      );
    fc.assert(
      fc.property(flags, flags, fc.option(policyLayer), (base, extra, policy) => {
        const before = new Set(visible([flagsLayer(base)]));
        const stricter = {
          allowWrite: base.allowWrite && extra.allowWrite,
          noShell: base.noShell || extra.noShell,
          noFilesystem: base.noFilesystem || extra.noFilesystem,
        };
        const after = visible([flagsLayer(stricter), ...(policy ? [policy] : [])]);
        for (const name of after) expect(before.has(name)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
