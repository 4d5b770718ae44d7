import { defineLayer } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { openMcpCatalog } from "./catalog.js";
import { McpAdmissionError } from "./diagnostics.js";
import { sessionOver, textOf } from "./test-support/kernel-session.js";
import { misbehavingStdio, noCredentials, testCredentials } from "./test-support/servers.js";

async function admissionError(promise: Promise<unknown>): Promise<McpAdmissionError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpAdmissionError);
  return error as McpAdmissionError;
}

describe("admission", () => {
  it("fails the task when a required server cannot start, naming the server and its stderr", async () => {
    const error = await admissionError(
      openMcpCatalog({
        servers: {
          good: misbehavingStdio(),
          broken: misbehavingStdio({ required: true, env: { FAIL_AT_START: "fail-flag" } }),
        },
        credentials: testCredentials({
          "fail-flag": { consumer: "mcp.environment", destination: "broken", value: "1" },
        }),
      }),
    );
    expect(error.code).toBe("MCP_REQUIRED_SERVER_FAILED");
    expect(error.message).toMatch(/^required MCP server broken failed to start: .*misconfigured on purpose/);
    expect(error.diagnostics.filter((d) => d.code === "MCP_SERVER_FAILED").map((d) => d.server)).toEqual([
      "broken",
    ]);
  });

  it("leaves an optional server out with a diagnostic and admits the rest", async () => {
    const mcp = await openMcpCatalog({
      servers: {
        good: misbehavingStdio(),
        broken: misbehavingStdio({ env: { FAIL_AT_START: "fail-flag" } }),
      },
      credentials: testCredentials({
        "fail-flag": { consumer: "mcp.environment", destination: "broken", value: "1" },
      }),
    });
    onTestFinished(() => mcp.close());
    expect(mcp.providers.map((p) => p.id)).toEqual(["mcp/good"]);
    expect(mcp.diagnostics.filter((d) => d.server === "broken")).toEqual([
      {
        server: "broken",
        code: "MCP_SERVER_FAILED",
        message: "the server exited with status 7; stderr ends with: fatal: misconfigured on purpose",
      },
    ]);
  });

  it("fails a server that does not initialize within startup_timeout_ms", async () => {
    const started = Date.now();
    const mcp = await openMcpCatalog({
      servers: {
        mute: {
          transport: "stdio",
          command: process.execPath,
          args: ["-e", "setInterval(() => {}, 1000)"],
          startup_timeout_ms: 300,
          shutdown_timeout_ms: 200,
        },
      },
      credentials: noCredentials,
    });
    onTestFinished(() => mcp.close());
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(mcp.diagnostics).toEqual([
      { server: "mute", code: "MCP_SERVER_FAILED", message: "no answer within 300 ms" },
    ]);
  });

  it("rejects an invalid configuration before starting anything", async () => {
    const error = await admissionError(
      openMcpCatalog({
        servers: { rel: { transport: "stdio", command: "node" }, odd: { transport: "ftp", url: "x" } },
        credentials: noCredentials,
      }),
    );
    expect(error.code).toBe("MCP_INVALID_CONFIG");
    expect(error.diagnostics.map((d) => d.server)).toEqual(["rel", "odd"]);
  });

  it("does not start a launcher given as a non-canonical path", async () => {
    const mcp = await openMcpCatalog({
      servers: { dotted: misbehavingStdio({ command: `${process.execPath}/../node` }) },
      credentials: noCredentials,
    });
    expect(mcp.diagnostics).toEqual([
      { server: "dotted", code: "MCP_SERVER_CONFIG", message: "command must be a canonical absolute path" },
    ]);
  });

  it("reports cancellation of admission", async () => {
    const error = await admissionError(
      openMcpCatalog({
        servers: { a: misbehavingStdio() },
        credentials: noCredentials,
        signal: AbortSignal.abort(),
      }),
    );
    expect(error.code).toBe("MCP_ADMISSION_CANCELLED");
  });
});

describe("credentials", () => {
  const credentials = testCredentials({
    alpha: { consumer: "mcp.environment", destination: "alpha", value: "alpha-secret-value" },
    "alpha-header": { consumer: "mcp.headers", destination: "alpha", value: "wrong-consumer" },
  });

  it("reach only the server they are scoped to", async () => {
    const mcp = await openMcpCatalog({
      servers: {
        alpha: misbehavingStdio({ env: { ALPHA_TOKEN: "alpha" } }),
        beta: misbehavingStdio(),
      },
      credentials,
    });
    onTestFinished(() => mcp.close());
    const { session } = await sessionOver(mcp);
    const envOf = async (tool: string) => JSON.parse(textOf((await session.call({ tool, args: {} })).result));
    expect(await envOf("mcp_alpha_env")).toEqual({ ALPHA_TOKEN: "[REDACTED]" });
    expect(await envOf("mcp_beta_env")).toEqual({});
  });

  it("are refused for another server or another consumer, without revealing values", async () => {
    const mcp = await openMcpCatalog({
      servers: {
        beta: misbehavingStdio({ env: { STOLEN: "alpha" } }),
        gamma: misbehavingStdio({ env: { WRONG: "alpha-header" } }),
      },
      credentials,
    });
    onTestFinished(() => mcp.close());
    expect(mcp.providers).toEqual([]);
    expect(mcp.diagnostics).toMatchInlineSnapshot(`
      [
        {
          "code": "MCP_CREDENTIAL",
          "message": "environment variable STOLEN: credential alpha: CREDENTIAL_SCOPE: credential alpha is for mcp.environment of alpha",
          "server": "beta",
        },
        {
          "code": "MCP_CREDENTIAL",
          "message": "environment variable WRONG: credential alpha-header: CREDENTIAL_SCOPE: credential alpha-header is for mcp.headers of alpha",
          "server": "gamma",
        },
      ]
    `);
    expect(JSON.stringify(mcp.diagnostics)).not.toContain("secret-value");
  });
});

describe("policy at admission", () => {
  it("does not start a server or launcher the layers deny", async () => {
    const layers = [
      defineLayer({ id: "deployment", "mcp.server": { deny: [{ id: "no-beta", match: "beta" }] } }),
      defineLayer({ id: "ceiling", "mcp.launcher": { allow: [{ id: "only-bin-true", path: "/bin/true" }] } }),
    ];
    const mcp = await openMcpCatalog({
      servers: { alpha: misbehavingStdio(), beta: misbehavingStdio() },
      credentials: noCredentials,
      layers,
    });
    expect(mcp.providers).toEqual([]);
    expect(mcp.diagnostics.map((d) => [d.server, d.code, d.message.split(":")[0]])).toEqual([
      ["alpha", "MCP_SERVER_DENIED", "not started"],
      ["beta", "MCP_SERVER_DENIED", "not started"],
    ]);
    expect(mcp.diagnostics[1]?.message).toContain("deployment/no-beta");
  });
});
