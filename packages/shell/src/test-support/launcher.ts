import { readdirSync, readFileSync } from "node:fs";
import type { Session } from "@pablo/kernel";
import { eventually } from "./processes.js";

/** The launcher process a host started: its PID and its socket path (from its command line). */
export interface FoundLauncher {
  readonly pid: number;
  readonly socket: string;
  readonly directory: string;
}

/** The live launchers whose parent is `host`, found in /proc as anyone could find them. */
export function launchersOf(host: number): FoundLauncher[] {
  const found: FoundLauncher[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== host || fields[0] === "Z") continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      // perl -e SCRIPT SOCKET DIRECTORY
      if (argv[1] !== "-e" || !argv[3]?.includes("pablo-launcher-")) continue;
      found.push({ pid: Number(entry), socket: argv[3], directory: argv[4] ?? "" });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * Runs `true` until a command's parent is the launcher (the first runs are spawned directly while
 * it starts), and returns it. The session's tool must run without a PID namespace, so that the
 * command's parent is visible.
 */
export async function launcherInUse(session: Session): Promise<FoundLauncher> {
  return eventually(async () => {
    const parent = await commandParent(session);
    return launchersOf(process.pid).find((launcher) => launcher.pid === parent);
  });
}

/** The PID of the parent of a command run by shell.run (without a PID namespace). */
export async function commandParent(session: Session): Promise<number> {
  const { result } = await session.call({ tool: "shell_run", args: { command: "echo $PPID" } });
  if (!result.ok) throw new Error(`shell.run failed: ${JSON.stringify(result.error)}`);
  return Number((result.data as { stdout: string }).stdout.trim());
}
