import { readdirSync, readFileSync } from "node:fs";

/** Descendants past this many are not looked for: the walk is bounded whatever the tree holds. */
const MAX_DESCENDANTS = 4096;

/**
 * SIGKILLs every descendant of this process and the process group each one leads, at once and
 * without waiting: the escalation of a second Ctrl-C, when the person will not wait for the grace
 * of a cancellation. A command's leader is killed with its group, and unshare's namespace ends with
 * unshare (`--kill-child`). Linux only (it reads `/proc`); elsewhere it does nothing.
 */
export function killDescendants(): number {
  if (process.platform !== "linux") return 0;
  const found = descendants(process.pid);
  for (const pid of found) {
    // The group the descendant leads, if it leads one (a shell run is started with setsid).
    signal(-pid);
    signal(pid);
  }
  return found.length;
}

function descendants(root: number): number[] {
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0 && found.length < MAX_DESCENDANTS) {
    const parent = queue.shift() as number;
    for (const child of childrenOf(parent)) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return children;
  }
  for (const task of tasks) {
    try {
      for (const word of readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ")) {
        const child = Number(word);
        if (Number.isInteger(child) && child > 1) children.push(child);
      }
    } catch {
      // The task ended meanwhile.
    }
  }
  return children;
}

function signal(pid: number): void {
  if (pid === process.pid || pid === -process.pid) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already, or not a group leader.
  }
}
