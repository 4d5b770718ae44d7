import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { expectNoStackTrace, freshHome, personEnv, runPablo } from "./harness.js";

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return !["Z", "X"].includes(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3));
}

describe("pablo tools with a stdio MCP server that floods stdout", () => {
  it("leaves /bin/yes out with a coded reason naming the server, and exits", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const config = home.write(
      "pablo.toml",
      '[options.mcp.servers.x]\ntransport = "stdio"\ncommand = "/bin/yes"\nstartup_timeout_ms = 2000\n',
    );
    const run = await runPablo(["tools", "--explain", "--config", config], {
      cwd: workspace,
      env: personEnv(home),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(`${run.stdout}${run.stderr}`).toMatch(/mcp\/x: .*not JSON-RPC messages.*\[MCP_SERVER_FAILED\]/);
    expectNoStackTrace(`${run.stdout}${run.stderr}`);
  });

  it("fails admission for a required flooding server and ends it", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const pidFile = `${home.home}/yes.pid`;
    // The shell records its host PID, then becomes /bin/yes in place.
    const script = 'read -r pid rest < /proc/self/stat; echo "$pid" > "$1"; exec /bin/yes';
    const config = home.write(
      "pablo.toml",
      [
        "[options.mcp.servers.x]",
        'transport = "stdio"',
        'command = "/bin/sh"',
        `args = ["-c", ${JSON.stringify(script)}, "sh", ${JSON.stringify(pidFile)}]`,
        "startup_timeout_ms = 2000",
        "max_message_bytes = 1024",
        "required = true",
        "",
      ].join("\n"),
    );
    const run = await runPablo(["tools", "--config", config], { cwd: workspace, env: personEnv(home) });
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toMatch(/MCP_REQUIRED_SERVER_FAILED/);
    expect(run.stderr).toMatch(/required MCP server x failed to start: .*not JSON-RPC messages/);
    expect(isRunning(Number(readFileSync(pidFile, "utf8").trim()))).toBe(false);
  });
});
