import { type StdioOptions, spawn, spawnSync } from "node:child_process";
import { existsSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it, onTestFinished } from "vitest";
import { createShellTool, type ShellToolConfig } from "./index.js";
import { readyLauncher } from "./launcher.js";
import { type RunRequest, runProcess } from "./run-process.js";
import { sessionFor } from "./test-support/kernel.js";
import { commandParent, launcherInUse, launchersOf } from "./test-support/launcher.js";
import { eventually, isAlive } from "./test-support/processes.js";
import { runRequest } from "./test-support/run-request.js";
import { useWorkspace } from "./test-support/workspace.js";

/** Without a namespace, so that a command's parent (the launcher, or this process) is visible. */
function shell(config: Partial<ShellToolConfig> = {}) {
  const workspace = useWorkspace();
  const { session } = sessionFor(
    createShellTool({ workspace, sandbox: { pid_namespace: false }, ...config }),
  );
  return { workspace, session };
}

async function run(
  session: ReturnType<typeof shell>["session"],
  command: string,
  env?: Record<string, string>,
) {
  const { result } = await session.call({
    tool: "shell_run",
    args: { command, timeout_ms: 10_000, ...(env ? { env } : {}) },
  });
  return result;
}

describe("the launcher", () => {
  it("starts commands after the first, with the same result as spawning them from this process", async () => {
    const launched = shell();
    const launcher = await launcherInUse(launched.session);
    const direct = shell({ launcher: false });
    expect(await commandParent(direct.session)).toBe(process.pid);

    const commands = [
      "printf 'to stdout'; printf 'to stderr' >&2; exit 3",
      "env | sort",
      "pwd; umask",
      "ls /proc/self/fd",
      "trap '' TERM; kill -TERM $$; echo survived",
      "kill -KILL $$",
      "cat; echo stdin-was-empty",
    ];
    for (const command of commands) {
      const [viaLauncher, viaSpawn] = [
        await run(launched.session, command),
        await run(direct.session, command),
      ];
      const normalise = (value: unknown) =>
        JSON.stringify(value)
          .replaceAll(launched.workspace, "WS")
          .replaceAll(direct.workspace, "WS")
          .replace(/PABLO_SHELL_RUN=[0-9a-f-]+/, "PABLO_SHELL_RUN=marker");
      expect(normalise(viaLauncher), command).toBe(normalise(viaSpawn));
    }
    expect(await run(launched.session, "exit 3")).toMatchObject({
      ok: false,
      error: { code: "TOOL_FAILED", details: { exitCode: 3 } },
    });
    expect(await run(launched.session, "kill -KILL $$")).toMatchObject({
      ok: false,
      error: { details: { exitCode: null, signal: "SIGKILL" } },
    });
    // Every command after the first went through the same launcher.
    expect(await commandParent(launched.session)).toBe(launcher.pid);
  });

  it("gives each command the umask the host has when it is launched", async () => {
    const { session } = shell();
    await launcherInUse(session);
    const previous = process.umask(0o027);
    onTestFinished(() => {
      process.umask(previous);
    });
    expect(await run(session, "umask")).toMatchObject({ ok: true, data: { stdout: "0027\n" } });
  });

  it("refuses a NUL in an argument or the environment as a direct spawn does", async () => {
    // shell.run's schema refuses such input first; this is the launcher's own refusal beneath it.
    const launcher = await eventually(() => readyLauncher());
    const cwd = useWorkspace();
    const runWith = (overrides: Partial<RunRequest>) =>
      runProcess(runRequest("/bin/echo", cwd, { args: ["x"], ...overrides }));
    for (const overrides of [{ args: ["a\0b"] }, { env: { PATH: "/usr/bin:/bin", X: "a\0b" } }]) {
      const [viaLauncher, viaSpawn] = [await runWith({ ...overrides, launcher }), await runWith(overrides)];
      expect(viaLauncher.end).toMatchObject({ kind: "spawn-failed", code: "ERR_INVALID_ARG_VALUE" });
      expect(viaSpawn.end).toMatchObject({ kind: "spawn-failed", code: "ERR_INVALID_ARG_VALUE" });
    }
    expect((await runWith({ launcher })).stdout.text).toBe("x\n");
  });

  it("reports a missing executable or working directory as spawn-failed with the errno, as a direct spawn does", async () => {
    const launcher = await eventually(() => readyLauncher());
    const cwd = useWorkspace();
    for (const [executable, dir] of [
      ["/nonexistent/sh", cwd],
      ["/bin/sh", `${cwd}/vanished`],
    ] as const) {
      const [viaLauncher, viaSpawn] = [
        await runProcess(runRequest(executable, dir, { launcher })),
        await runProcess(runRequest(executable, dir)),
      ];
      expect(viaLauncher).toMatchObject({ end: { kind: "spawn-failed", code: "ENOENT" }, survivors: [] });
      expect(viaSpawn).toMatchObject({ end: { kind: "spawn-failed", code: "ENOENT" }, survivors: [] });
    }
  });

  it("keeps its socket in a directory only this user can enter", async () => {
    const { session } = shell();
    const launcher = await launcherInUse(session);
    const directory = statSync(launcher.directory);
    expect(directory.mode & 0o777).toBe(0o700);
    expect(directory.uid).toBe(process.getuid?.());
    expect(statSync(launcher.socket).isSocket()).toBe(true);
    expect(launcher.socket.startsWith(`${launcher.directory}/`)).toBe(true);
  });

  it("keeps starting commands while connections that never present a token are held open against it", async () => {
    const { session } = shell();
    const launcher = await launcherInUse(session);
    const junk: Socket[] = [];
    onTestFinished(() => {
      for (const socket of junk) socket.destroy();
    });
    for (let i = 0; i < 500; i++) {
      const socket = connect(launcher.socket);
      socket.on("error", () => undefined);
      // A third sends a wrong token, the rest nothing at all.
      if (i % 3 === 0) socket.write(Buffer.alloc(16, i % 256));
      junk.push(socket);
    }
    await delay(200);
    for (let i = 0; i < 5; i++) {
      expect(await run(session, `echo call ${i}`)).toMatchObject({
        ok: true,
        data: { stdout: `call ${i}\n` },
      });
    }
    expect(await commandParent(session)).toBe(launcher.pid);
    // It holds only a bounded number of them, closing the rest.
    expect(readdirSync(`/proc/${launcher.pid}/fd`).length).toBeLessThan(140);
  });

  it("is started again after it is killed, and a command it was running ends with its exit status lost", async () => {
    const { session } = shell();
    const first = await launcherInUse(session);
    // Killed once it has reported the exec (`S`, its next write after the commands above were
    // reaped): killed between its fork and that report, it fails the launch instead (ELAUNCHER).
    // Waiting for the command's own child left that race open, and it failed CI under load.
    const before = bytesWritten(first.pid);
    const running = run(session, "sleep 1; echo done");
    await eventually(() => (bytesWritten(first.pid) > before ? true : undefined));
    process.kill(first.pid, "SIGKILL");
    const result = await running;
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_FAILED", details: { exitCode: null } } });
    expect(result.ok ? "" : result.error.message).toContain("exit status was lost");
    await eventually(() => (existsSync(first.directory) ? undefined : true));
    const second = await launcherInUse(session);
    expect(second.pid).not.toBe(first.pid);
  });
});

describe("a command the launcher starts", () => {
  it("inherits no descriptor the host process inherited without close-on-exec", async () => {
    // A host with extra descriptors 3 and 12 (as a parent program might leak them) runs shell.run
    // from the built package until its launcher starts a command, and prints what that one saw.
    const script = `
      import { createShellTool } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).pathname)};
      const tool = createShellTool({ workspace: process.cwd(), resolveCwd: async (w) => ({ ok: true, path: w }), sandbox: { pid_namespace: false } });
      const ctx = { mode: "agent", signal: new AbortController().signal, progress() {}, state: (_k, init) => init() };
      for (let i = 0; i < 200; i++) {
        const result = await tool.execute({ command: "cat /proc/$PPID/comm; ls /proc/self/fd" }, ctx);
        if (result.data.stdout.startsWith("perl\\n")) { process.stdout.write(result.data.stdout); break; }
        await new Promise((r) => setTimeout(r, 20));
      }
    `;
    const hostname = () => openSync("/etc/hostname", "r");
    const stdio: StdioOptions = [
      "ignore",
      "pipe",
      "pipe",
      hostname(),
      ...Array(8).fill("ignore"),
      hostname(),
    ];
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: useWorkspace(),
      stdio,
      encoding: "utf8",
    });
    expect(child.stderr).toBe("");
    const [parent, ...fds] = child.stdout.split("\n").filter(Boolean);
    expect(parent).toBe("perl");
    // ls's own directory descriptor is 3.
    expect(fds.sort()).toEqual(["0", "1", "2", "3"]);
  });
});

describe("the launcher's socket directory", () => {
  /** A host process running shell.run from the built package a few times; it prints its launcher's directory. */
  function startHost(exit: "stay" | "exit") {
    const script = `
      import { readdirSync, readFileSync } from "node:fs";
      import { createShellTool } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).pathname)};
      const tool = createShellTool({ workspace: process.cwd(), resolveCwd: async (w) => ({ ok: true, path: w }), sandbox: { pid_namespace: false } });
      const ctx = { mode: "agent", signal: new AbortController().signal, progress() {}, state: (_k, init) => init() };
      for (let i = 0; i < 200; i++) {
        const result = await tool.execute({ command: "cat /proc/$PPID/cmdline" }, ctx);
        const argv = result.data.stdout.split("\\0");
        if (argv[1] === "-e") { process.stdout.write(argv[4] + "\\n"); break; }
        await new Promise((r) => setTimeout(r, 20));
      }
      ${exit === "stay" ? "setInterval(() => {}, 1000);" : ""}
    `;
    const host = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: useWorkspace(),
      stdio: ["ignore", "pipe", "inherit"],
    });
    onTestFinished(() => {
      host.kill("SIGKILL");
    });
    const directory = new Promise<string>((resolve) => {
      let text = "";
      host.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) resolve(text.trim());
      });
    });
    return { host, directory };
  }

  it("is removed when the host exits", async () => {
    const { host, directory } = startHost("exit");
    const dir = await directory;
    expect(dir).toContain("pablo-launcher-");
    await new Promise((resolve) => host.once("exit", resolve));
    await eventually(() => (existsSync(dir) ? undefined : true));
  });

  it("is removed, and the launcher ends, when the host is killed", async () => {
    const { host, directory } = startHost("stay");
    const dir = await directory;
    expect(existsSync(dir)).toBe(true);
    const [launcher] = launchersOf(host.pid as number);
    expect(launcher?.directory).toBe(dir);
    host.kill("SIGKILL");
    await eventually(() => (existsSync(dir) ? undefined : true));
    await eventually(() => (isAlive(launcher?.pid as number) ? undefined : true));
  });
});

/** Bytes a process has written so far (`wchar` of /proc/PID/io). */
function bytesWritten(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, "utf8");
  return Number(/^wchar: (\d+)$/m.exec(io)?.[1] ?? Number.NaN);
}
