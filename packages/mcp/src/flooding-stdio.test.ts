import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { openMcpCatalog } from "./catalog.js";
import { McpAdmissionError } from "./diagnostics.js";
import { sessionOver } from "./test-support/kernel-session.js";
import { floodingStdio, isRunning, noCredentials } from "./test-support/servers.js";

const STARTUP_TIMEOUT_MS = 2_000;

/** A file the server writes its host PID to, removed after the test. */
function pidFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "pablo-flood-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "pid");
}

/** `/bin/yes` itself (the shell records its PID, then becomes `yes` in place). */
function yes(file: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transport: "stdio",
    command: "/bin/sh",
    args: ["-c", 'read -r pid rest < /proc/self/stat; echo "$pid" > "$1"; exec /bin/yes', "sh", file],
    ...extra,
  };
}

/** Opens a catalog with one required server, expecting admission to fail; returns the failure. */
async function failedAdmission(entry: Record<string, unknown>): Promise<McpAdmissionError> {
  const error = await openMcpCatalog({
    servers: { flood: { ...entry, required: true, startup_timeout_ms: STARTUP_TIMEOUT_MS } },
    credentials: noCredentials,
  }).then(
    (mcp) => mcp.close(),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpAdmissionError);
  return error as McpAdmissionError;
}

function serverFailure(error: McpAdmissionError): string {
  expect(error.code).toBe("MCP_REQUIRED_SERVER_FAILED");
  const failed = error.diagnostics.filter((d) => d.code === "MCP_SERVER_FAILED");
  expect(failed.map((d) => d.server)).toEqual(["flood"]);
  return failed[0]?.message ?? "";
}

function processOf(file: string): number {
  const pid = Number(readFileSync(file, "utf8").trim());
  expect(pid).toBeGreaterThan(1);
  return pid;
}

describe("a stdio server that floods stdout at startup", () => {
  it("fails /bin/yes as a server that is not speaking JSON-RPC, and ends it", async () => {
    const file = pidFile();
    const message = serverFailure(await failedAdmission(yes(file)));
    expect(message).toContain("not JSON-RPC messages");
    expect(isRunning(processOf(file))).toBe(false);
  });

  it("fails /bin/yes the same way under a small max_message_bytes", async () => {
    const file = pidFile();
    const message = serverFailure(await failedAdmission(yes(file, { max_message_bytes: 1024 })));
    expect(message).toContain("not JSON-RPC messages");
    expect(isRunning(processOf(file))).toBe(false);
  });

  it("fails a server printing endless junk lines, and ends it", async () => {
    const file = pidFile();
    const message = serverFailure(await failedAdmission(floodingStdio("junk", file)));
    expect(message).toContain("not JSON-RPC messages");
    expect(isRunning(processOf(file))).toBe(false);
  });

  it("fails a server printing one endless line at max_message_bytes, without keeping the line", async () => {
    const file = pidFile();
    const message = serverFailure(await failedAdmission(floodingStdio("endless-line", file)));
    expect(message).toContain("max_message_bytes");
    expect(isRunning(processOf(file))).toBe(false);
  });

  it("still fires the startup timeout under a flood of valid notifications, and ends the server", async () => {
    const file = pidFile();
    const message = serverFailure(await failedAdmission(floodingStdio("notifications", file)));
    // Pablo's startup deadline and the SDK's request timeout have the same length; either may win.
    expect(message).toMatch(new RegExp(`no answer within ${STARTUP_TIMEOUT_MS} ms|Request timed out`));
    expect(isRunning(processOf(file))).toBe(false);
  });
});

describe("a stdio server that floods junk after a good start", () => {
  it("drops the connection with a coded result, ends the server and refuses later calls", async () => {
    const file = pidFile();
    const mcp = await openMcpCatalog({
      servers: { flood: floodingStdio("junk-after-init", file) },
      credentials: noCredentials,
    });
    onTestFinished(() => mcp.close());
    const { session } = await sessionOver(mcp);
    const { result } = await session.call({ tool: "mcp_flood_flood", args: {} });
    expect(result).toMatchObject({ ok: false, error: { code: "MCP_SERVER_DISCONNECTED" } });
    expect(result.ok ? "" : result.error.message).toContain("not JSON-RPC messages");
    await expect.poll(() => isRunning(processOf(file)), { timeout: 5_000 }).toBe(false);
    const later = await session.call({ tool: "mcp_flood_flood", args: {} });
    expect(later.result).toMatchObject({ ok: false, error: { code: "MCP_SERVER_UNAVAILABLE" } });
  });
});
