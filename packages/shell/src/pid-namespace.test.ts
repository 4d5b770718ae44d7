import { spawnSync } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createShellTool, localContainment, type ShellToolConfig } from "./index.js";
import { sessionFor } from "./test-support/kernel.js";
import { uniqueSleep } from "./test-support/tokens.js";
import { useWorkspace } from "./test-support/workspace.js";

const FAST_CLEANUP = { kill_grace_ms: 300, cleanup_ms: 3_000 };

function shell(config: Partial<ShellToolConfig> = {}) {
  const workspace = useWorkspace();
  return { workspace, ...sessionFor(createShellTool({ workspace, options: FAST_CLEANUP, ...config })) };
}

describe("in a PID namespace (the default here), no descendant outlives shell.run", () => {
  it("is the containment in force on this host, and the audit record says so", async () => {
    expect(localContainment().kind).toBe("pid-namespace");
    const { session, audit } = shell();
    const { result } = await session.call({ tool: "shell_run", args: { command: "echo $$" } });
    // The shell is the first process of its own namespace.
    expect(result).toMatchObject({ ok: true, data: { stdout: "1\n" } });
    expect(audit.records.at(-1)?.notes).toMatchObject({ containment: "pid-namespace" });
  });

  // Each escape leaves the group, the session or the environment marker, and closes the output.
  const escapes: Array<[string, (sleep: string) => string]> = [
    ["env -i setsid", (s) => `env -i setsid sleep ${s} >/dev/null 2>&1 & echo ok`],
    ["setsid -f", (s) => `setsid -f sleep ${s} </dev/null >/dev/null 2>&1; echo ok`],
    ["a double fork", (s) => `(sh -c 'sleep ${s} </dev/null >/dev/null 2>&1 &' &); sleep 0.05; echo ok`],
    ["nohup in the background", (s) => `nohup sleep ${s} >/dev/null 2>&1 & echo ok`],
    [
      "a process that ignores SIGTERM and SIGHUP",
      (s) =>
        `env -i setsid sh -c 'trap "" TERM HUP; sleep ${s}' </dev/null >/dev/null 2>&1 & sleep 0.05; echo ok`,
    ],
    ["disown in bash", (s) => `bash -c 'sleep ${s} </dev/null >/dev/null 2>&1 & disown; echo ok'`],
  ];
  for (const [name, command] of escapes) {
    it(`ends ${name} when the command returns, and the result is ok`, async () => {
      const sleep = uniqueSleep();
      const { session } = shell();
      const { result } = await session.call({ tool: "shell_run", args: { command: command(sleep.seconds) } });
      expect(result).toMatchObject({ ok: true, data: { stdout: "ok\n" } });
      expect(sleep.alive()).toEqual([]);
    });
  }

  it("returns only once hundreds of escapees of a command that exited on its own are gone", async () => {
    const sleep = uniqueSleep();
    const { session } = shell();
    const command = `for i in $(seq 200); do (env -i setsid sleep ${sleep.seconds} </dev/null >/dev/null 2>&1 &); done; echo ok`;
    for (let round = 0; round < 3; round++) {
      const { result } = await session.call({ tool: "shell_run", args: { command } });
      expect(result).toMatchObject({ ok: true, data: { stdout: "ok\n" } });
      expect(sleep.alive()).toEqual([]);
    }
  });

  it("ends a bounded fork loop of escapees at the timeout, leaving none in the process table", async () => {
    const sleep = uniqueSleep();
    const { session } = shell({ options: {} });
    const { result } = await session.call({
      tool: "shell_run",
      args: {
        command: `i=0; while [ $i -lt 1000 ]; do env -i setsid sleep ${sleep.seconds} </dev/null >/dev/null 2>&1 & i=$((i+1)); done; wait`,
        timeout_ms: 1_000,
      },
    });
    expect(result.ok ? "ok" : result.error.code).toMatch(/^(ok|TOOL_TIMEOUT)$/);
    expect(sleep.alive()).toEqual([]);
  });

  it("ends the whole namespace at the timeout, even what left the group while the shell still runs", async () => {
    const sleep = uniqueSleep();
    const { session } = shell();
    const { result } = await session.call({
      tool: "shell_run",
      args: {
        command: `trap '' TERM; env -i setsid sleep ${sleep.seconds} </dev/null >/dev/null 2>&1 & sleep 60`,
        timeout_ms: 1_000,
      },
    });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    expect(sleep.alive()).toEqual([]);
  });
});

describe("a timeout or cancel under the namespace ends the command line where it stands", () => {
  // The shell is the namespace's init: the kernel drops a SIGTERM sent to it from outside unless it
  // has a handler, so without more it would run the line's next step once its child was ended.
  it("does not run the step after the one the timeout interrupted", async () => {
    const { session, workspace } = shell();
    const { result } = await session.call({
      tool: "shell_run",
      args: { command: "sleep 3; echo end > after.txt", timeout_ms: 1_000 },
    });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    await delay(3_500);
    expect(existsSync(`${workspace}/after.txt`)).toBe(false);
  });

  it("does not run the next step after a cancel either", async () => {
    const { session, workspace } = shell();
    const controller = new AbortController();
    const call = session.call({
      tool: "shell_run",
      args: { command: ": > started; sleep 3; echo end > after.txt" },
      signal: controller.signal,
    });
    while (!existsSync(`${workspace}/started`)) await delay(20);
    controller.abort();
    expect((await call).result).toMatchObject({ ok: false, error: { code: "TOOL_CANCELLED" } });
    await delay(3_500);
    expect(existsSync(`${workspace}/after.txt`)).toBe(false);
  });

  it("still lets a shell that traps SIGTERM run its handler within the grace", async () => {
    const { session, workspace } = shell({ options: { kill_grace_ms: 2_000, cleanup_ms: 5_000 } });
    const { result } = await session.call({
      tool: "shell_run",
      args: {
        command: "trap 'echo cleaned > trap.txt; exit 1' TERM; sleep 3 & wait; echo end > after.txt",
        timeout_ms: 1_000,
      },
    });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    await delay(3_000);
    expect(readFileSync(`${workspace}/trap.txt`, "utf8")).toBe("cleaned\n");
    expect(existsSync(`${workspace}/after.txt`)).toBe(false);
  });
});

describe("a command sees only descriptors 0, 1 and 2", () => {
  it("does not inherit a descriptor the host process inherited without close-on-exec", async () => {
    // A child Node process with an extra descriptor 3 and 12 (as a parent program might leak them)
    // runs shell.run once (the built package: run `pnpm build` first) and prints what the command saw.
    const script = `
      import { createShellTool } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).pathname)};
      const tool = createShellTool({ workspace: process.cwd(), resolveCwd: async (w) => ({ ok: true, path: w }) });
      const ctx = { mode: "agent", signal: new AbortController().signal, progress() {}, state: (_k, init) => init() };
      const result = await tool.execute({ command: "ls /proc/self/fd" }, ctx);
      process.stdout.write(result.data.stdout);
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: useWorkspace(),
      stdio: [
        "ignore",
        "pipe",
        "pipe",
        openSync("/etc/hostname", "r"),
        "ignore",
        "ignore",
        "ignore",
        "ignore",
        "ignore",
        "ignore",
        "ignore",
        "ignore",
        openSync("/etc/hostname", "r"),
      ],
      encoding: "utf8",
    });
    expect(child.stderr).toBe("");
    // ls's own directory descriptor is 3.
    expect(child.stdout.split("\n").filter(Boolean).sort()).toEqual(["0", "1", "2", "3"]);
  });
});
