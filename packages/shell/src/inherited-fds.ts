import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { Launch } from "./containment.js";

/** `O_CLOEXEC` as /proc/PID/fdinfo prints it (octal). */
const O_CLOEXEC = 0o2000000;
/** Shells whose redirections take descriptor numbers above 9 (dash's take one digit). */
const WIDE_FD_SHELLS: readonly string[] = ["/bin/bash", "/usr/bin/bash"];

/**
 * Descriptors above 2 of this process that a child would inherit: those without close-on-exec.
 * Node opens everything close-on-exec, so these came from whoever started the host. Empty off Linux.
 */
export function inheritedDescriptors(procRoot = "/proc"): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync(`${procRoot}/self/fd`);
  } catch {
    return found;
  }
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd < 3) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`${procRoot}/self/fdinfo/${fd}`, "latin1"));
      if (flags?.[1] !== undefined && (Number.parseInt(flags[1], 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // Closed meanwhile (the directory listing's own descriptor among them).
    }
  }
  return found.sort((a, b) => a - b);
}

/**
 * `launch` behind a tiny shell prologue that closes `fds` and then execs it, so the command sees
 * only descriptors 0, 1 and 2. The host's descriptors are left alone; only the child's copies
 * close. `launch` itself when there is nothing to close. Descriptors above 9 need bash (dash's
 * redirections take one digit): without bash they stay open.
 */
export function closeInheritedDescriptors(launch: Launch, fds: readonly number[]): Launch {
  if (fds.length === 0) return launch;
  const wide = fds.some((fd) => fd > 9);
  const shell = (wide ? WIDE_FD_SHELLS.find((path) => existsSync(path)) : undefined) ?? "/bin/sh";
  const closable = shell === "/bin/sh" ? fds.filter((fd) => fd <= 9) : fds;
  if (closable.length === 0) return launch;
  const script = `exec ${closable.map((fd) => `${fd}>&-`).join(" ")}; exec "$@"`;
  return { executable: shell, args: ["-c", script, "pablo-close-fds", launch.executable, ...launch.args] };
}
