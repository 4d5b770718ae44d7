import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { createShellTool, type ShellToolConfig } from "./index.js";
import { sessionFor } from "./test-support/kernel.js";
import { uniqueSleep } from "./test-support/tokens.js";
import { useWorkspace } from "./test-support/workspace.js";

/** shell.run under bubblewrap in a process of its own (see the script). */
const ALONE = fileURLToPath(new URL("./test-support/bubblewrap-alone.mjs", import.meta.url));

function sandboxed(config: Partial<ShellToolConfig> = {}) {
  const workspace = useWorkspace();
  const scratchDir = useWorkspace("pablo-shell-scratch-");
  const tool = createShellTool({ workspace, scratchDir, sandbox: { kind: "bubblewrap" }, ...config });
  return { workspace, scratchDir, ...sessionFor(tool) };
}

async function run(session: ReturnType<typeof sandboxed>["session"], command: string) {
  return (await session.call({ tool: "shell_run", args: { command } })).result;
}

describe('[options.sandbox] kind = "bubblewrap"', () => {
  it("writes the workspace and the scratch directory, and nothing else", async () => {
    const { session, workspace, scratchDir, audit } = sandboxed();
    expect(await run(session, 'echo in > inside.txt && echo s > "$PABLO_SCRATCH_DIR/s.txt"')).toMatchObject({
      ok: true,
    });
    expect(readFileSync(`${workspace}/inside.txt`, "utf8")).toBe("in\n");
    expect(readFileSync(`${scratchDir}/s.txt`, "utf8")).toBe("s\n");
    expect(audit.records.at(-1)?.notes).toMatchObject({ containment: "bubblewrap" });
    const outside = await run(session, "echo x > /etc/pablo-escape");
    expect(outside).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
    expect(existsSync("/etc/pablo-escape")).toBe(false);
  });

  it("shows a private /tmp and no home directory", async () => {
    const { session } = sandboxed();
    const home = homedir();
    expect(await run(session, `ls ${home}`)).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
    // The host's /tmp has other files; the sandbox's holds only the workspace and scratch mount points.
    const tmp = await run(session, "ls -A /tmp | wc -l");
    expect(tmp).toMatchObject({ ok: true, data: { stdout: "2\n" } });
  });

  it("refuses a loopback connection without the net grant and allows it with the grant", async () => {
    const server = createServer((socket) => socket.end("hello\n"));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    onTestFinished(() => void server.close());
    const port = (server.address() as { port: number }).port;
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
    const bash = (cmd: string) => `bash -c '${cmd}'`;
    const denied = sandboxed();
    expect(await run(denied.session, bash(connect))).toMatchObject({
      ok: false,
      error: { code: "TOOL_FAILED" },
    });
    const granted = sandboxed({ sandbox: { kind: "bubblewrap", bubblewrap: { net: true } } });
    expect(await run(granted.session, bash(connect))).toMatchObject({
      ok: true,
      data: { stdout: "hello\n" },
    });
  });

  it("binds the workspace read-only in the read-only profile, and in Plan unless the mode is auto", async () => {
    const readOnly = sandboxed({ permission: "read-only" });
    expect(await run(readOnly.session, "echo x > file")).toMatchObject({
      ok: false,
      error: { code: "TOOL_FAILED" },
    });
    expect(existsSync(`${readOnly.workspace}/file`)).toBe(false);
    expect(await run(readOnly.session, 'echo x > "$PABLO_SCRATCH_DIR/f"')).toMatchObject({ ok: true });
  });

  it("ends what a command left running, as the local namespace does", async () => {
    const sleep = uniqueSleep();
    const { session } = sandboxed();
    const result = await run(
      session,
      `env -i setsid sleep ${sleep.seconds} </dev/null >/dev/null 2>&1 & echo ok`,
    );
    expect(result).toMatchObject({ ok: true, data: { stdout: "ok\n" } });
    expect(sleep.alive()).toEqual([]);
  });

  it("returns only once the namespace is empty, however many processes it must end", async () => {
    // bwrap's own monitor exits when the command does, before its init has ended the namespace:
    // with hundreds of escapees to end, that teardown outlasted the call about one run in five.
    const sleep = uniqueSleep();
    const { session } = sandboxed();
    const escapees = `for i in $(seq 200); do (env -i setsid sleep ${sleep.seconds} </dev/null >/dev/null 2>&1 &); done`;
    for (let round = 0; round < 5; round++) {
      const result = await run(session, `${escapees}; echo ok`);
      expect(result).toMatchObject({ ok: true, data: { stdout: "ok\n" } });
      expect(sleep.alive()).toEqual([]);
    }
  });

  it("ends a command that timed out together with everything it started", async () => {
    const sleep = uniqueSleep();
    const { session } = sandboxed();
    const command = `for i in $(seq 50); do (env -i setsid sleep ${sleep.seconds} </dev/null >/dev/null 2>&1 &); done; sleep ${sleep.seconds}`;
    const { result } = await session.call({ tool: "shell_run", args: { command, timeout_ms: 1_000 } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    expect(sleep.alive()).toEqual([]);
  });

  // Making a mount namespace in which unshare cannot run needs root; CI runs as root.
  it.skipIf(process.getuid?.() !== 0)(
    "runs bubblewrap alone where unshare cannot run, still confined, and says so",
    () => {
      const workspace = useWorkspace();
      // unshare's own default propagation is private, so the bind mounts stay in this namespace.
      const mask =
        'for p in /usr/bin/unshare /bin/unshare; do [ -e "$p" ] && mount --bind /dev/null "$p"; done; exec "$@"';
      const child = spawnSync(
        "/usr/bin/unshare",
        ["--mount", "--", "/bin/sh", "-c", mask, "sh", process.execPath, ALONE, workspace, homedir()],
        { encoding: "utf8", timeout: 60_000 },
      );
      expect(child.stderr).toBe("");
      const seen = JSON.parse(child.stdout) as { description: string; results: Record<string, unknown> };
      expect(seen.description).toContain("no outer PID namespace here");
      expect(seen.results["echo"]).toMatchObject({ ok: true, data: { stdout: "inside\n" } });
      expect(readFileSync(`${workspace}/inside.txt`, "utf8")).toBe("inside\n");
      expect(seen.results["home"]).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
      expect(seen.results["etc"]).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
      expect(existsSync("/etc/pablo-escape-alone")).toBe(false);
    },
  );

  it("is a configuration error when bubblewrap is missing, never a fallback", () => {
    expect(() =>
      createShellTool({
        workspace: "/tmp",
        sandbox: { kind: "bubblewrap", bubblewrap: { bwrap_path: "/nonexistent/bwrap" } },
      }),
    ).toThrow(expect.objectContaining({ code: "SANDBOX_UNAVAILABLE" }));
    expect(() => createShellTool({ workspace: "/tmp", sandbox: { kind: "virtual" } })).toThrow(
      expect.objectContaining({ code: "SANDBOX_UNAVAILABLE" }),
    );
  });
});
