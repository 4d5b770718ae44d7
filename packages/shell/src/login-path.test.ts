import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { commandRulesLayer, createShellTool } from "./index.js";
import { loginShell, probeLoginPath } from "./login-path.js";
import { sessionFor } from "./test-support/kernel.js";
import { eventually, isAlive, killAll, readPids } from "./test-support/processes.js";
import { useWorkspace } from "./test-support/workspace.js";

/** A stand-in login shell: a real script that runs `-lic COMMAND` after its start-up output. */
function fakeShell(dir: string, body: string): string {
  const path = `${dir}/login-shell`;
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("the login PATH probe", () => {
  it("returns the PATH the login shell sets up, whatever its start-up files print first", async () => {
    const dir = useWorkspace();
    const shell = fakeShell(
      dir,
      'echo "welcome, PATH=/nope"\n[ "$1" = -lic ] || exit 9\nPATH=/opt/tools/bin:/usr/bin:/bin\neval "$2"',
    );
    expect(await probeLoginPath(shell)).toBe("/opt/tools/bin:/usr/bin:/bin");
  });

  it("gives up silently on a missing shell, a non-zero exit or a PATH with relative entries", async () => {
    const dir = useWorkspace();
    expect(await probeLoginPath(undefined)).toBeUndefined();
    expect(await probeLoginPath(`${dir}/missing`)).toBeUndefined();
    expect(await probeLoginPath(fakeShell(dir, 'PATH=/usr/bin\neval "$2"\nexit 1'))).toBeUndefined();
    expect(await probeLoginPath(fakeShell(dir, 'PATH=.:/usr/bin\neval "$2"'))).toBeUndefined();
    expect(await probeLoginPath(fakeShell(dir, "echo no marker here"))).toBeUndefined();
  });

  it("is bounded: a shell that hangs is killed, with what it started, at the timeout", async () => {
    const dir = useWorkspace();
    const shell = fakeShell(dir, `sleep 60 & echo $! > ${dir}/pids\nwait`);
    const started = Date.now();
    expect(await probeLoginPath(shell, 300)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(3_000);
    const pids = await eventually(() => readPids(`${dir}/pids`, 1));
    onTestFinished(() => killAll(pids));
    expect(await eventually(() => (pids.some(isAlive) ? undefined : true))).toBe(true);
  });

  it("takes $SHELL when it is an absolute executable, else the first of /bin/zsh, /bin/bash, /bin/sh", () => {
    const dir = useWorkspace();
    const shell = fakeShell(dir, "true");
    expect(loginShell(shell)).toBe(shell);
    const fallback = loginShell("relative/zsh");
    expect(["/bin/zsh", "/bin/bash", "/bin/sh"]).toContain(fallback);
    expect(loginShell(undefined)).toBe(fallback);
  });
});

describe("login_path_probe = true", () => {
  const saved = process.env["SHELL"];
  afterEach(() => {
    if (saved === undefined) delete process.env["SHELL"];
    else process.env["SHELL"] = saved;
  });

  it("gives every command the login PATH, and resolves command words against it for the rules", async () => {
    const dir = useWorkspace();
    mkdirSync(`${dir}/bin`);
    writeFileSync(`${dir}/bin/only-here`, "#!/bin/sh\necho found\n");
    chmodSync(`${dir}/bin/only-here`, 0o755);
    process.env["SHELL"] = fakeShell(dir, `PATH=${dir}/bin:/usr/bin:/bin\neval "$2"`);
    const layer = commandRulesLayer("deployment", {
      allow: [{ id: "only-here", executable: `${dir}/bin/only-here`, args: [], match: "exact" }],
    });
    const tool = createShellTool({ workspace: useWorkspace(), options: { login_path_probe: true } });
    const { session } = sessionFor(tool, [layer]);
    expect(await session.dryRun({ tool: "shell_run", args: { command: "only-here" } })).toMatchObject({
      decision: "allow",
      rule: "only-here",
    });
    const { result } = await session.call({ tool: "shell_run", args: { command: "only-here" } });
    expect(result).toMatchObject({ ok: true, data: { stdout: "found\n" } });

    // Probed once per process: a later tool gets the cached PATH even though $SHELL changed.
    process.env["SHELL"] = "/nonexistent";
    const again = sessionFor(
      createShellTool({ workspace: useWorkspace(), options: { login_path_probe: true } }),
    );
    const { result: path } = await again.session.call({
      tool: "shell_run",
      args: { command: 'printf %s "$PATH"' },
    });
    expect(path).toMatchObject({ ok: true, data: { stdout: `${dir}/bin:/usr/bin:/bin` } });
  });
});
