import { readFileSync } from "node:fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { createShellTool, type ProcessControl, procProcessControl, type ShellToolConfig } from "./index.js";
import { sessionFor } from "./test-support/kernel.js";
import { eventually, isAlive, killAll, readPids } from "./test-support/processes.js";
import { uniqueSleep } from "./test-support/tokens.js";
import { useWorkspace } from "./test-support/workspace.js";

const FAST_CLEANUP = { kill_grace_ms: 300, cleanup_ms: 3_000 };
/** These tests prove the cleanup that works without a namespace; pid-namespace.test.ts proves the namespace. */
const NO_NAMESPACE = { pid_namespace: false };

function shell(config: Partial<ShellToolConfig> = {}) {
  const workspace = useWorkspace();
  const { session } = sessionFor(
    createShellTool({ workspace, options: FAST_CLEANUP, sandbox: NO_NAMESPACE, ...config }),
  );
  const pids = (count: number) => {
    const found = readPids(`${workspace}/pids`, count) ?? [];
    onTestFinished(() => killAll(found));
    return found;
  };
  return { workspace, session, pids };
}

describe("without a PID namespace, a process started by shell.run does not outlive the call", () => {
  it("ends the command and its grandchildren at the timeout", async () => {
    const { session, pids } = shell();
    const started = Date.now();
    const { result } = await session.call({
      tool: "shell_run",
      args: {
        command:
          "sleep 60 & echo $! >> pids; sh -c 'sleep 60 & echo $! >> pids; wait' & while [ $(wc -l < pids) -lt 2 ]; do sleep 0.02; done; echo ready; wait",
        timeout_ms: 1_500,
      },
    });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(result).toMatchObject({
      ok: false,
      error: { code: "TOOL_TIMEOUT", details: { stdout: "ready\n" } },
    });
    const found = pids(2);
    expect(found).toHaveLength(2);
    expect(found.filter(isAlive)).toEqual([]);
  });

  it("kills with SIGKILL what ignores SIGTERM, after the grace period", async () => {
    const { session, pids } = shell();
    const { result } = await session.call({
      tool: "shell_run",
      args: { command: "trap '' TERM; sleep 60 & echo $! > pids; wait", timeout_ms: 1_000 },
    });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    const found = pids(1);
    expect(found).toHaveLength(1);
    expect(found.filter(isAlive)).toEqual([]);
  });

  it("ends a background child left behind by a command that succeeded", async () => {
    const { session, pids } = shell();
    const { result, audit } = await session.call({
      tool: "shell_run",
      args: { command: "sleep 60 & echo $! > pids" },
    });
    expect(result).toMatchObject({ ok: true, data: { exitCode: 0 } });
    expect(audit.notes).toMatchObject({ endedProcesses: 1 });
    const found = pids(1);
    expect(found).toHaveLength(1);
    expect(found.filter(isAlive)).toEqual([]);
  });

  it("finds a setsid escapee that left the session and group by the run marker, and ends it", async () => {
    const { session, pids, workspace } = shell();
    const { result } = await session.call({
      tool: "shell_run",
      args: {
        command:
          "echo $$ > leader; setsid sh -c 'echo $$ > pids; cut -d\" \" -f6 /proc/self/stat > sid; exec sleep 60' </dev/null >/dev/null 2>&1 & while [ ! -s sid ]; do sleep 0.02; done",
      },
    });
    expect(result).toMatchObject({ ok: true });
    const [escapee] = pids(1);
    expect(escapee).toBeGreaterThan(1);
    const leader = readFileSync(`${workspace}/leader`, "utf8").trim();
    const sid = readFileSync(`${workspace}/sid`, "utf8").trim();
    expect(sid).not.toBe(leader);
    expect(escapee && isAlive(escapee)).toBe(false);
  });

  it("ends a double-forked daemon whose parent exited, leaving it orphaned in its own session", async () => {
    const { session, pids } = shell();
    const { result } = await session.call({
      tool: "shell_run",
      args: {
        command:
          "setsid sh -c 'sleep 60 & echo $! > pids' </dev/null >/dev/null 2>&1 & while [ ! -s pids ]; do sleep 0.02; done; sleep 0.1",
      },
    });
    expect(result).toMatchObject({ ok: true });
    const found = pids(1);
    expect(found).toHaveLength(1);
    expect(found.filter(isAlive)).toEqual([]);
  });

  it("finds an escapee that cleared its environment by the output it still holds open, and ends it", async () => {
    const { session, pids } = shell();
    const { result, audit } = await session.call({
      tool: "shell_run",
      args: { command: "env -i setsid sleep 60 & echo $! > pids; echo started" },
    });
    expect(result).toMatchObject({ ok: true, data: { stdout: "started\n" } });
    expect(audit.notes).toMatchObject({ endedProcesses: 1 });
    const found = pids(1);
    expect(found).toHaveLength(1);
    expect(found.filter(isAlive)).toEqual([]);
  });

  it("ends everything promptly when the call is cancelled, and reports TOOL_CANCELLED", async () => {
    const { session, pids, workspace } = shell();
    const controller = new AbortController();
    const call = session.call({
      tool: "shell_run",
      args: { command: "sleep 60 & echo $! > pids; sh -c 'sleep 60' & wait" },
      signal: controller.signal,
    });
    await eventually(() => readPids(`${workspace}/pids`, 1));
    const cancelled = Date.now();
    controller.abort();
    const { result } = await call;
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_CANCELLED" } });
    expect(Date.now() - cancelled).toBeLessThan(3_000);
    const found = pids(1);
    expect(found).toHaveLength(1);
    expect(found.filter(isAlive)).toEqual([]);
  });

  it("reports TOOL_CLEANUP_FAILED naming a process it could not end", async () => {
    // Stands in for a process that cannot be killed (another user's, or stuck in the kernel):
    // the real /proc control, except that signals to the escapee are dropped.
    const real = procProcessControl();
    let protectedPid = 0;
    const processes: ProcessControl = {
      find: (run) => real.find(run),
      holders: (run, targets) => real.holders(run, targets),
      signal: (pid, signal) => (pid === protectedPid ? true : real.signal(pid, signal)),
    };
    const { session, pids, workspace } = shell({
      processes,
      options: { kill_grace_ms: 100, cleanup_ms: 500 },
    });
    const watcher = setInterval(() => {
      protectedPid = readPids(`${workspace}/pids`, 1)?.[0] ?? 0;
    }, 5);
    const { result } = await session.call({
      tool: "shell_run",
      args: {
        command: "setsid sleep 60 </dev/null >/dev/null 2>&1 & echo $! > pids; sleep 0.3",
      },
    });
    clearInterval(watcher);
    const [survivor] = pids(1);
    expect(result).toMatchObject({
      ok: false,
      error: { code: "TOOL_CLEANUP_FAILED", details: { survivors: [{ pid: survivor, name: "sleep" }] } },
    });
    expect(result.ok ? "" : result.error.message).toContain(`pid ${survivor} (sleep)`);
  });
});

// In this file rather than pid-namespace.test.ts: the orphan it leaves for a moment would be an
// orphan of the run to the other tests here, which run without a namespace too, were they concurrent.
describe("without a namespace, an escapee nothing can find is never reported ok", () => {
  it("fails the call with TOOL_CLEANUP_FAILED when an orphan started by the run is still alive", async () => {
    const sleep = uniqueSleep();
    const { session, audit } = sessionFor(
      createShellTool({ workspace: useWorkspace(), options: FAST_CLEANUP, sandbox: NO_NAMESPACE }),
    );
    const { result } = await session.call({
      tool: "shell_run",
      args: {
        command: `env -i setsid sleep ${sleep.seconds} </dev/null >/dev/null 2>&1 & sleep 0.05; echo ok`,
      },
    });
    const [escapee] = sleep.alive();
    expect(escapee).toBeDefined();
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_CLEANUP_FAILED" } });
    expect(result.ok ? "" : result.error.message).toContain(`pid ${escapee} (sleep`);
    expect(audit.records.at(-1)?.notes).toMatchObject({ containment: "process-group" });
  });
});
