import { describe, expect, it, onTestFinished } from "vitest";
import { openMcpCatalog } from "./catalog.js";
import * as api from "./index.js";
import { sessionOver } from "./test-support/kernel-session.js";
import { everythingStdio, misbehavingStdio, noCredentials } from "./test-support/servers.js";

describe("the package's public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ELICITATION_LIMITS",
        "HttpServerSchema",
        "MAX_AUTHORIZATIONS",
        "MCP_DEFAULTS",
        "McpAdmissionCode",
        "McpAdmissionError",
        "McpDiagnosticCode",
        "McpErrorCode",
        "McpOAuthCode",
        "McpOAuthError",
        "McpOptionsSchema",
        "McpPolicySchema",
        "McpServerSchema",
        "SCHEMA_SUBSET_LIMITS",
        "StdioServerSchema",
        "boundOutputSchema",
        "closeInputSchema",
        "createServeBridge",
        "defaultTokenDir",
        "fieldAccepts",
        "isLoopbackHost",
        "loginMcpServer",
        "logoutMcpServer",
        "mcpAuthorizationStates",
        "mcpNativeName",
        "mcpPolicyLayers",
        "mcpProviderName",
        "openMcpCatalog",
        "serveCatalog",
      ]
    `);
  });
});

describe("deferred tools", () => {
  it("defers per server and per tool as configured", async () => {
    const mcp = await openMcpCatalog({
      servers: {
        eager: everythingStdio({ deferred: false, tools: { "get-env": { deferred: true } } }),
        few: misbehavingStdio({ deferred: "auto" }),
      },
      credentials: noCredentials,
    });
    onTestFinished(() => mcp.close());
    const { session } = await sessionOver(mcp);
    const deferred = (name: string) => session.catalog.resolve(name)?.definition.deferred;
    expect(deferred("mcp_eager_echo")).toBe(false);
    expect(deferred("mcp_eager_get-env")).toBe(true);
    // The misbehaving fixture admits 15 tools, more than the threshold of 10.
    expect(deferred("mcp_few_ping")).toBe(true);
  });
});

describe("risk from annotations", () => {
  it("only ever tightens the configured risk", async () => {
    const mcp = await openMcpCatalog({
      servers: { lowered: misbehavingStdio({ risk: "low" }), plain: misbehavingStdio() },
      credentials: noCredentials,
    });
    onTestFinished(() => mcp.close());
    const { session } = await sessionOver(mcp);
    const risk = (name: string) => session.catalog.resolve(name)?.definition.risk;
    // readOnlyHint never lowers; destructiveHint raises to high, whatever readOnlyHint says.
    expect([risk("mcp_plain_ping"), risk("mcp_plain_pid"), risk("mcp_plain_wipe")]).toEqual([
      "medium",
      "medium",
      "high",
    ]);
    // A deployment may set a server's base risk; annotations still only raise it.
    expect([risk("mcp_lowered_pid"), risk("mcp_lowered_wipe")]).toEqual(["low", "high"]);
  });
});

describe("long sessions", () => {
  it("do not accumulate abort listeners on the turn's signal", async () => {
    const mcp = await openMcpCatalog({ servers: { bad: misbehavingStdio() }, credentials: noCredentials });
    onTestFinished(() => mcp.close());
    const { session } = await sessionOver(mcp);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    onTestFinished(() => {
      process.off("warning", onWarning);
    });
    for (let i = 0; i < 30; i++) {
      const { result } = await session.call({ tool: "mcp_bad_ping", args: {} });
      expect(result.ok).toBe(true);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
  });
});
