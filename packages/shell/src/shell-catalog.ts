import { realpathSync } from "node:fs";
import { ErrorCode, fail, type ToolContext, type ToolFailure } from "@pablo/kernel";
import { isExecutableFile } from "./executable-file.js";

/** A shell the host may run commands with. The ID is the identity; no path a call names is accepted. */
export interface ShellEntry {
  /** Stable catalog ID. */
  readonly id: "sh" | "bash";
  /** Absolute path of the approved system shell, or of the deployment's `bash_path`. */
  readonly path: string;
  readonly dialect: "posix" | "bash";
  /** Arguments before the command text: non-interactive, no start-up files unless `login`. */
  readonly args: readonly string[];
}

/** Deployment choices that change where bash is found and how it starts. */
export interface ShellLookup {
  /** `options.shell.bash_path`: the only bash accepted when set. */
  readonly bashPath?: string;
  /** Run bash as a login shell (`bash -lc`). */
  readonly login?: boolean;
  /** Directories searched for bash after the well-known locations. Default: the host's PATH. */
  readonly searchPath?: readonly string[];
}

/** Where bash is looked for before PATH (seed 001 §5): the system, /usr/local, then Homebrew. */
export const WELL_KNOWN_BASH: readonly string[] = [
  "/bin/bash",
  "/usr/bin/bash",
  "/usr/local/bin/bash",
  "/opt/homebrew/bin/bash",
  "/home/linuxbrew/.linuxbrew/bin/bash",
];

/** The shells present on this host, in catalog order (`sh`, then `bash`). */
export function shellCatalog(lookup: ShellLookup = {}): ShellEntry[] {
  const entries: ShellEntry[] = [];
  for (const id of ["sh", "bash"] as const) {
    const entry = findShell(id, lookup);
    if (entry) entries.push(entry);
  }
  return entries;
}

/**
 * The catalog entry for `id`, resolved afresh, or undefined when absent. `sh` is /bin/sh. `bash`
 * is `lookup.bashPath` when set (nothing else is tried), else the first executable of
 * {@link WELL_KNOWN_BASH}, else the first `bash` in an absolute directory of the search path.
 */
export function findShell(id: ShellEntry["id"], lookup: ShellLookup = {}): ShellEntry | undefined {
  if (id === "sh") {
    return isExecutableFile("/bin/sh") ? { id, path: "/bin/sh", dialect: "posix", args: ["-c"] } : undefined;
  }
  const path = findBash(lookup);
  if (!path) return undefined;
  const args = lookup.login ? ["-lc"] : ["--noprofile", "--norc", "-c"];
  return { id, path, dialect: "bash", args };
}

const PIN_KEY = "@pablo/shell:pinned-shell";

interface Pin {
  turnId: string;
  entry: ShellEntry | undefined;
  executable: string;
}

/**
 * Resolves the shell for a call and pins it for the turn: the first call of a turn records the
 * identity (ID, dialect, path and the executable it resolves to through links), and a later call
 * of the same turn whose identity resolves differently is refused with `COMMAND_SHELL_CHANGED`
 * rather than silently running another shell.
 */
export function pinShell(
  ctx: Pick<ToolContext, "turnId" | "state">,
  id: ShellEntry["id"],
  find: (id: ShellEntry["id"]) => ShellEntry | undefined = findShell,
  lookup: ShellLookup = {},
): ShellEntry | ToolFailure {
  const entry = lookupShell(id, find, lookup);
  if ("ok" in entry) return entry;
  const executable = resolvedExecutable(entry.path);
  const pin = ctx.state<Pin>(PIN_KEY, () => ({ turnId: "", entry: undefined, executable: "" }));
  if (pin.turnId === ctx.turnId && pin.entry && changed(pin, entry, executable)) {
    return fail(
      ErrorCode.COMMAND_SHELL_CHANGED,
      `the ${id} shell changed during this turn; nothing was run`,
      {
        shell: id,
        pinned: pin.entry.path,
        now: entry.path,
        pinnedExecutable: pin.executable,
        nowExecutable: executable,
      },
    );
  }
  pin.turnId = ctx.turnId;
  pin.entry = entry;
  pin.executable = executable;
  return entry;
}

/** The catalog entry for `id`, or `SHELL_NOT_FOUND` with install guidance. Changes nothing. */
export function lookupShell(
  id: ShellEntry["id"],
  find: (id: ShellEntry["id"]) => ShellEntry | undefined = findShell,
  lookup: ShellLookup = {},
): ShellEntry | ToolFailure {
  const entry = find(id);
  if (entry) return entry;
  if (id === "sh") {
    return fail(ErrorCode.SHELL_NOT_FOUND, "no sh shell is installed at /bin/sh", {
      shell: id,
      guidance: "Install a POSIX shell at /bin/sh (for example the dash or bash package).",
    });
  }
  const where = lookup.bashPath
    ? `options.shell.bash_path ${lookup.bashPath} is not an executable regular file`
    : `no bash shell is installed at ${WELL_KNOWN_BASH.join(", ")} or on PATH`;
  return fail(ErrorCode.SHELL_NOT_FOUND, where, {
    shell: id,
    guidance:
      'Install bash with the system package manager (for example `apt-get install bash` or `brew install bash`), point options.shell.bash_path at it, or set options.shell.shell = "sh".',
  });
}

function findBash(lookup: ShellLookup): string | undefined {
  if (lookup.bashPath !== undefined) return isExecutableFile(lookup.bashPath) ? lookup.bashPath : undefined;
  const known = WELL_KNOWN_BASH.find(isExecutableFile);
  if (known) return known;
  // Only absolute PATH entries: a relative one would find a bash in whatever the cwd is.
  const search = lookup.searchPath ?? (process.env["PATH"] ?? "").split(":");
  for (const directory of search) {
    if (!directory.startsWith("/")) continue;
    const candidate = `${directory.replace(/\/+$/, "")}/bash`;
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function resolvedExecutable(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function changed(pin: Pin, entry: ShellEntry, executable: string): boolean {
  const before = pin.entry;
  if (!before) return false;
  return (
    before.id !== entry.id ||
    before.dialect !== entry.dialect ||
    before.path !== entry.path ||
    pin.executable !== executable
  );
}
