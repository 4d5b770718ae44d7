import { readdirSync, readFileSync } from "node:fs";

/** A live browser process, found in the process table. */
export interface BrowserProcess {
  readonly pid: number;
  readonly name: string;
}

/**
 * Live (not zombie) processes that belong to one browser run: those whose command line carries
 * its `--user-data-dir` (every Chromium child does, including crashpad handlers that leave the
 * process group) and those in the leader's process group. Reads `/proc`; never throws.
 */
export function browserProcesses(userDataDir: string, leader?: number): BrowserProcess[] {
  const marker = `--user-data-dir=${userDataDir}`;
  const found: BrowserProcess[] = [];
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return found;
  }
  for (const entry of pids) {
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const stat = procStat(pid);
    if (stat === undefined || stat.state === "Z") continue;
    const ours = (leader !== undefined && stat.group === leader) || commandLine(pid).includes(`${marker} `);
    if (ours) found.push({ pid, name: stat.name });
  }
  return found;
}

function procStat(pid: number): { name: string; state: string; group: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The name is in parentheses and may itself contain ") ", so split at the last one.
    const close = text.lastIndexOf(") ");
    const name = text.slice(text.indexOf("(") + 1, close);
    const fields = text.slice(close + 2).split(" ");
    return { name, state: fields[0] ?? "", group: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/**
 * The command line with arguments separated by spaces and one after the last. Chromium's children
 * rewrite theirs into a single space-joined string, so both forms are compared the same way.
 */
function commandLine(pid: number): string {
  try {
    return `${readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ")} `;
  } catch {
    return "";
  }
}
