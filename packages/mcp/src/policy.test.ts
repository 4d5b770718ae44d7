import { PabloError } from "@pablo/kernel";
import { Compile } from "typebox/compile";
import { describe, expect, it, onTestFinished } from "vitest";
import { openMcpCatalog } from "./catalog.js";
import { type McpOptions, McpOptionsSchema } from "./options-schema.js";
import { mcpPolicyLayers } from "./policy.js";
import { sessionOver, textOf } from "./test-support/kernel-session.js";
import { misbehavingStdio, noCredentials } from "./test-support/servers.js";

/** The seed's example, as a TOML parser returns it. */
const seedOptions: McpOptions = {
  servers: {
    records: {
      transport: "stdio",
      command: "/absolute/path/to/records-server",
      args: ["--stdio"],
      cwd: "/srv/mcp",
      env: { RECORDS_TOKEN: "records" },
      required: true,
      startup_timeout_ms: 30000,
      operation_timeout_ms: 60000,
    },
    evidence: {
      transport: "http",
      url: "https://mcp.example.com/mcp",
      headers: { "x-evidence-token": "evidence" },
      required: true,
      startup_timeout_ms: 30000,
      operation_timeout_ms: 60000,
    },
  },
  policies: [
    {
      servers: { default: "deny", allow: [{ id: "support.evidence-server", value: "evidence" }] },
      tools: {
        default: "deny",
        allow: [{ id: "support.read-evidence", value: "mcp/evidence/read_evidence" }],
      },
    },
  ],
};

describe("[options.mcp]", () => {
  it("accepts the seed's configuration format", () => {
    expect(Compile(McpOptionsSchema).Check(seedOptions)).toBe(true);
  });

  it("accepts the minimal forms and refuses unknown keys", () => {
    const check = Compile(McpOptionsSchema);
    expect(check.Check({ servers: { a: { transport: "stdio", command: "/bin/a" } } })).toBe(true);
    expect(check.Check({ servers: { a: { transport: "http", url: "https://x/mcp" } } })).toBe(true);
    expect(check.Check({ servers: { a: { transport: "stdio", command: "/bin/a", shell: true } } })).toBe(
      false,
    );
    expect(check.Check({ servers: { "a/b": { transport: "stdio", command: "/bin/a" } } })).toBe(false);
  });
});

describe("mcpPolicyLayers", () => {
  it("maps each policy entry onto one layer over mcp.server, mcp.tool and mcp.launcher", () => {
    const layers = mcpPolicyLayers([
      ...(seedOptions.policies ?? []),
      {
        id: "ceiling",
        launchers: { allow: [{ id: "node-only", value: "/usr/bin/node" }] },
        servers: { deny: [{ id: "no-legacy", value: "legacy*" }] },
      },
    ]);
    expect(layers).toMatchInlineSnapshot(`
      [
        {
          "description": "[[options.mcp.policies]] entry",
          "id": "mcp.policy.1",
          "mcp.server": {
            "allow": [
              {
                "id": "support.evidence-server",
                "match": "evidence",
              },
            ],
            "default": "deny",
          },
          "mcp.tool": {
            "allow": [
              {
                "id": "support.read-evidence",
                "match": "mcp/evidence/read_evidence",
              },
            ],
            "default": "deny",
          },
        },
        {
          "description": "[[options.mcp.policies]] entry",
          "id": "ceiling",
          "mcp.launcher": {
            "allow": [
              {
                "id": "node-only",
                "path": "/usr/bin/node",
              },
            ],
          },
          "mcp.server": {
            "deny": [
              {
                "id": "no-legacy",
                "match": "legacy*",
              },
            ],
          },
        },
      ]
    `);
  });

  it("refuses rules the kernel cannot evaluate", () => {
    expect(() => mcpPolicyLayers([{ launchers: { allow: [{ id: "rel", value: "bin/node" }] } }])).toThrow(
      PabloError,
    );
    expect(() =>
      mcpPolicyLayers([
        {
          servers: { allow: [{ id: "same", value: "a" }] },
          tools: { deny: [{ id: "same", value: "mcp/a/x" }] },
        },
      ]),
    ).toThrow(/duplicate rule ID same/);
  });

  it("narrows the catalog a session sees, deny winning, citing stable rule IDs", async () => {
    const layers = mcpPolicyLayers([
      {
        servers: {
          default: "deny",
          allow: [
            { id: "t.bad", value: "bad" },
            { id: "t.ghost", value: "ghost" },
          ],
        },
        tools: {
          allow: [{ id: "t.all-bad", value: "mcp/bad/*" }],
          deny: [{ id: "t.no-env", value: "mcp/bad/env" }],
        },
      },
    ]);
    const mcp = await openMcpCatalog({
      servers: { bad: misbehavingStdio(), other: misbehavingStdio() },
      credentials: noCredentials,
      layers,
    });
    onTestFinished(() => mcp.close());
    expect(mcp.providers.map((p) => p.id)).toEqual(["mcp/bad"]);
    const { session } = await sessionOver(mcp, { layers });
    const visible = session.visibleTools().map((e) => e.name);
    expect(visible).toContain("mcp/bad/ping");
    expect(visible).not.toContain("mcp/bad/env");
    const env = session.visibility().find((v) => v.entry.name === "mcp/bad/env");
    expect(env?.decision).toMatchObject({ verdict: "deny", layer: "mcp.policy.1", rule: "t.no-env" });
    const { result } = await session.call({ tool: "mcp_bad_env", args: {} });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", details: { rule: "t.no-env" } },
    });
    expect(textOf((await session.call({ tool: "mcp_bad_ping", args: {} })).result)).toBe("pong");
  });

  it("cannot create a server the deployment did not configure", async () => {
    const layers = mcpPolicyLayers([{ servers: { allow: [{ id: "t.ghost", value: "ghost" }] } }]);
    const mcp = await openMcpCatalog({ servers: {}, credentials: noCredentials, layers });
    expect(mcp.providers).toEqual([]);
    expect(mcp.diagnostics).toEqual([]);
  });
});
