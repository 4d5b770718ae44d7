import { accessSync, constants, statSync } from "node:fs";
import { ErrorCode, fail, type ToolContext, type ToolFailure } from "@pablo/kernel";

/** A shell the host may run commands with. The ID is the identity; no other path is ever accepted. */
export interface ShellEntry {
  /** Stable catalog ID. */
  readonly id: "sh" | "bash";
  /** Absolute path of the approved system shell. */
  readonly path: string;
  readonly dialect: "posix" | "bash";
  /** Arguments before the command text: non-interactive, no start-up files. */
  readonly args: readonly string[];
}

const CANDIDATES: Readonly<
  Record<
    ShellEntry["id"],
    { paths: readonly string[]; dialect: ShellEntry["dialect"]; args: readonly string[] }
  >
> = {
  sh: { paths: ["/bin/sh"], dialect: "posix", args: ["-c"] },
  bash: {
    paths: ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"],
    dialect: "bash",
    args: ["--noprofile", "--norc", "-c"],
  },
};

/** The shells present on this host, in catalog order (`sh`, then `bash`). */
export function shellCatalog(): ShellEntry[] {
  const entries: ShellEntry[] = [];
  for (const id of ["sh", "bash"] as const) {
    const entry = findShell(id);
    if (entry) entries.push(entry);
  }
  return entries;
}

/** The catalog entry for `id`, resolved afresh from the approved locations, or undefined when absent. */
export function findShell(id: ShellEntry["id"]): ShellEntry | undefined {
  const candidate = CANDIDATES[id];
  const path = candidate.paths.find(isExecutableFile);
  return path ? { id, path, dialect: candidate.dialect, args: candidate.args } : undefined;
}

const PIN_KEY = "@pablo/shell:pinned-shell";

/**
 * Resolves the shell for a call and pins it for the turn: the first call of a turn records the
 * entry, and a later call of the same turn whose entry resolves differently is refused with
 * `COMMAND_SHELL_CHANGED` rather than silently running another shell.
 */
export function pinShell(
  ctx: Pick<ToolContext, "turnId" | "state">,
  id: ShellEntry["id"],
  find: (id: ShellEntry["id"]) => ShellEntry | undefined = findShell,
): ShellEntry | ToolFailure {
  const entry = lookupShell(id, find);
  if ("ok" in entry) return entry;
  const pin = ctx.state(PIN_KEY, () => ({ turnId: "", entry: undefined as ShellEntry | undefined }));
  if (
    pin.turnId === ctx.turnId &&
    pin.entry &&
    (pin.entry.path !== entry.path || pin.entry.dialect !== entry.dialect)
  ) {
    return fail(ErrorCode.COMMAND_SHELL_CHANGED, `the ${id} shell changed during this turn`, {
      shell: id,
      pinned: pin.entry.path,
      now: entry.path,
    });
  }
  pin.turnId = ctx.turnId;
  pin.entry = entry;
  return entry;
}

/** The catalog entry for `id`, or `SHELL_NOT_FOUND` with install guidance. Changes nothing. */
export function lookupShell(
  id: ShellEntry["id"],
  find: (id: ShellEntry["id"]) => ShellEntry | undefined = findShell,
): ShellEntry | ToolFailure {
  const entry = find(id);
  if (entry) return entry;
  return fail(
    ErrorCode.SHELL_NOT_FOUND,
    `no ${id} shell is installed at ${CANDIDATES[id].paths.join(", ")}`,
    {
      shell: id,
      guidance:
        id === "bash"
          ? 'Install bash with the system package manager (for example `apt-get install bash`), or set options.shell.shell = "sh".'
          : "Install a POSIX shell at /bin/sh (for example the dash or bash package).",
    },
  );
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
