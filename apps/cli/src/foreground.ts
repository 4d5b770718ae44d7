// The terminal's foreground, taken for the length of a card when a wrapper left pablo without it.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * Makes pablo's process group the terminal's foreground group when a wrapper process left it in
 * a background one that nobody will bring forward, and returns how to hand the terminal back.
 * `timeout` (without `--foreground`), run from a script or a tmux command, puts itself and pablo
 * in a new process group the terminal does not know about: a card that then turns on raw mode or
 * reads a key stops pablo (SIGTTOU, SIGTTIN) until the wrapper kills it, with the card never
 * drawn and the keys echoed.
 *
 * Only when the foreground belongs to one of pablo's own ancestors that is waiting for it (the
 * script or the `sh -c` that started the wrapper) and that is not a job-control shell (one that
 * ignores SIGTSTP, as every interactive shell does). A job-control shell put pablo in the
 * background on purpose (`pablo run … &`): taking the terminal from it would end its prompt, and
 * taking it from the job it runs in the foreground would break that job; pablo stops until `fg`,
 * as every program that reads the terminal does. Node has no tcsetpgrp, so a short perl (in
 * perl-base, on every Debian) ignores SIGTTOU, which is what lets a background process take the
 * foreground, and hands it over. Linux only; elsewhere, and when perl is missing, pablo says why
 * it waits and stops as before.
 */
export function holdForeground(warn: (line: string) => void): () => void {
  const self = processStat("self");
  if (self === undefined || self.foreground <= 0 || self.group === self.foreground) return NOTHING;
  const holder = ancestorHolding(self);
  if (holder === undefined || ignoresStop(holder) !== false) return NOTHING;
  if (!setForeground(self.group)) {
    warn(
      "pablo: the terminal belongs to another process group, so this card waits for it " +
        "(under timeout, use timeout --foreground)\n",
    );
    return NOTHING;
  }
  const giveBack = () => {
    process.off("exit", giveBack);
    setForeground(self.foreground);
  };
  // A run that ends while holding the terminal hands it back too.
  process.on("exit", giveBack);
  return giveBack;
}

const NOTHING = () => {};

/** A chain of ancestors longer than this is not a terminal session's. */
const MAX_ANCESTORS = 64;

interface ProcessStat {
  readonly parent: number;
  readonly group: number;
  readonly session: number;
  /** The foreground process group of the process's terminal (tpgid); -1 without one. */
  readonly foreground: number;
}

/** The pid of pablo's nearest ancestor in the terminal's foreground group, in pablo's session. */
function ancestorHolding(self: ProcessStat): number | undefined {
  let pid = self.parent;
  for (let depth = 0; depth < MAX_ANCESTORS && pid > 1; depth++) {
    const stat = processStat(String(pid));
    if (stat === undefined || stat.session !== self.session) return undefined;
    if (stat.group === self.foreground) return pid;
    pid = stat.parent;
  }
  return undefined;
}

/** From /proc/PID/stat: after the command name's closing parenthesis come state, ppid, pgrp, session, tty_nr, tpgid. */
function processStat(pid: string): ProcessStat | undefined {
  const stat = procFile(`${pid}/stat`);
  if (stat === undefined) return undefined;
  const [parent, group, session, , foreground] = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .slice(1, 6)
    .map(Number);
  const numbers = [parent, group, session, foreground];
  if (!numbers.every((n) => Number.isInteger(n))) return undefined;
  return {
    parent: parent as number,
    group: group as number,
    session: session as number,
    foreground: foreground as number,
  };
}

/** Whether process PID ignores SIGTSTP; undefined when it cannot be told. */
function ignoresStop(pid: number): boolean | undefined {
  const ignored = procFile(`${pid}/status`)?.match(/^SigIgn:\s*([0-9a-f]+)$/m)?.[1];
  if (ignored === undefined) return undefined;
  const SIGTSTP = 20n;
  return ((BigInt(`0x${ignored}`) >> (SIGTSTP - 1n)) & 1n) === 1n;
}

function procFile(path: string): string | undefined {
  try {
    return readFileSync(`/proc/${path}`, "utf8");
  } catch {
    return undefined;
  }
}

/** tcsetpgrp on the terminal at stdin, from a helper that ignores SIGTTOU; false when it could not. */
function setForeground(group: number): boolean {
  const result = spawnSync(
    "perl",
    ["-MPOSIX", "-e", '$SIG{TTOU} = "IGNORE"; POSIX::tcsetpgrp(0, $ARGV[0]) or exit 1', String(group)],
    { stdio: ["inherit", "ignore", "ignore"], timeout: 5_000 },
  );
  return result.status === 0;
}
