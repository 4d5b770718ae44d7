import { type ChildProcess, spawn } from "node:child_process";
import { onTestFinished } from "vitest";

/**
 * Starts `node` on a script with a cleared environment, killed (SIGKILL, by its own PID) and
 * reaped when the test finishes. Resolves once the child prints its first line, so the caller
 * knows it is running.
 */
export async function startNode(script: string, args: readonly string[] = []): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", script, "--", ...args], {
    env: { PATH: "/usr/bin:/bin" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  onTestFinished(() => stopChild(child));
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (status) => reject(new Error(`child exited early with ${status}`)));
    child.stdout?.once("data", () => resolve());
  });
  return child;
}

/** Kills a child by PID with SIGKILL and waits until it has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await exited;
}
