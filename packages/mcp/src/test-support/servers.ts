import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { CredentialResolution, CredentialResolver, CredentialUse } from "@pablo/kernel";

const require = createRequire(import.meta.url);

/** server-everything's entry script. */
export const EVERYTHING_ENTRY = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
export const PRELOAD = fileURLToPath(new URL("./fixtures/loopback-preload.mjs", import.meta.url));
export const MISBEHAVING = fileURLToPath(new URL("./fixtures/misbehaving-server.mjs", import.meta.url));

/** A stdio server entry for server-everything, launched by this Node binary. */
export function everythingStdio(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { transport: "stdio", command: process.execPath, args: [EVERYTHING_ENTRY, "stdio"], ...extra };
}

/** A stdio server entry for the misbehaving fixture. */
export function misbehavingStdio(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { transport: "stdio", command: process.execPath, args: [MISBEHAVING], ...extra };
}

export interface RunningServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Starts server-everything over Streamable HTTP, bound to 127.0.0.1 by the preload on a free
 * port, in its own process group; `stop()` kills the group and waits for the exit.
 */
export async function startEverythingHttp(): Promise<RunningServer> {
  const child = spawn(process.execPath, ["--import", PRELOAD, EVERYTHING_ENTRY, "streamableHttp"], {
    env: { PORT: "0" },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen: ${text}`)), 20_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const match = /PABLO_LISTENING (\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${text}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, pid: child.pid ?? 0, stop: () => killGroup(child) };
}

/** Kills a detached child's process group and waits for the child to exit. */
export async function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  await exited;
}

/** Whether a process is running (not gone, not a zombie). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Credentials for tests: each name is bound to exactly one consumer and destination. */
export function testCredentials(
  entries: Record<string, { consumer: string; destination: string; value: string }>,
): CredentialResolver {
  const resolved: string[] = [];
  return {
    resolve(name: string, use: CredentialUse): CredentialResolution {
      const entry = entries[name];
      if (!entry) return { ok: false, code: "CREDENTIAL_NOT_FOUND", message: `no credential named ${name}` };
      if (entry.consumer !== use.consumer || entry.destination !== use.destination) {
        return {
          ok: false,
          code: "CREDENTIAL_SCOPE",
          message: `credential ${name} is for ${entry.consumer} of ${entry.destination}`,
        };
      }
      resolved.push(entry.value);
      return { ok: true, value: entry.value };
    },
    resolvedValues: () => [...resolved],
  };
}

export const noCredentials: CredentialResolver = testCredentials({});

export const FLOODING = fileURLToPath(new URL("./fixtures/flooding-server.mjs", import.meta.url));

/** A stdio server entry for the flooding fixture in `mode`, writing its host PID to `pidFile`. */
export function floodingStdio(
  mode: string,
  pidFile: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { transport: "stdio", command: process.execPath, args: [FLOODING, mode, pidFile], ...extra };
}
