import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { Launch } from "./containment.js";

/** `O_CLOEXEC` as /proc/PID/fdinfo prints it (octal). */
const O_CLOEXEC = 0o2000000;
/** Perl closes any descriptor number and execs without touching the environment (Debian's perl-base is essential). */
const PERL_PATHS: readonly string[] = ["/usr/bin/perl", "/bin/perl"];

/**
 * {@link inheritedDescriptors} of this process, read once. Node opens every descriptor
 * close-on-exec, so the set can only be what the host was started with (it may shrink, never
 * grow): reading /proc on every run cost about 1 ms of a 5 ms `true`. A descriptor in the set that
 * the host closed later is harmless to name: the child's close of it just fails.
 */
export function hostInheritedDescriptors(): readonly number[] {
  hostFds ??= Object.freeze(inheritedDescriptors());
  return hostFds;
}

let hostFds: readonly number[] | undefined;
let foundPerl: string | undefined;

/** Perl's path, found once per process and never through PATH; "" when there is none. */
export function perlPath(): string {
  foundPerl ??= PERL_PATHS.find((path) => existsSync(path)) ?? "";
  return foundPerl;
}

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
 * `launch` behind a tiny prologue that closes `fds` and then execs it, so the program sees only
 * descriptors 0, 1 and 2 and exactly the environment it was given. The host's descriptors are
 * left alone; only the child's copies close. Perl does it for any descriptor; without perl, /bin/sh
 * closes those up to 9 (dash's redirections take one digit; it would export PWD, so that is unset
 * again) and larger ones stay open. `launch` itself when there is nothing to close.
 */
export function closeInheritedDescriptors(launch: Launch, fds: readonly number[]): Launch {
  if (fds.length === 0) return launch;
  const perl = perlPath();
  if (perl) {
    // fdopen-then-close needs no module (loading POSIX alone costs about 10 ms).
    const script =
      'for (split /,/, shift) { open(my $f, "<&=", $_) and close $f } exec { $ARGV[0] } @ARGV or exit 127';
    return { executable: perl, args: ["-e", script, fds.join(","), launch.executable, ...launch.args] };
  }
  const closable = fds.filter((fd) => fd <= 9);
  if (closable.length === 0) return launch;
  const script = `exec ${closable.map((fd) => `${fd}>&-`).join(" ")}; unset PWD; exec "$@"`;
  return {
    executable: "/bin/sh",
    args: ["-c", script, "pablo-close-fds", launch.executable, ...launch.args],
  };
}
