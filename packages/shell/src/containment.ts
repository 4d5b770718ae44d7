import { existsSync, lstatSync, mkdirSync, readlinkSync } from "node:fs";
import { PabloError } from "@pablo/kernel";
import { ShellOptionsErrorCode } from "./errors.js";
import { closeInheritedDescriptors, hostInheritedDescriptors } from "./inherited-fds.js";
import { onDemand } from "./on-demand.js";
import { BWRAP_PATHS, type ResolvedSandboxOptions, resolveSandboxOptions } from "./sandbox-options.js";

/**
 * How a run's descendants are kept from outliving it:
 * - `pid-namespace`: util-linux unshare starts the command as the first process of a new PID
 *   namespace; when it ends, the kernel ends every process left in the namespace, whatever they did
 *   to leave the group or clear the marker.
 * - `bubblewrap`: the same namespace guarantee, inside a bubblewrap sandbox (read-only system,
 *   private /tmp, no home, no network unless granted).
 * - `process-group`: no namespace could be made; the process group and the environment marker
 *   find what to end, and a process that left both cannot be proven gone.
 */
export type ContainmentKind = "pid-namespace" | "bubblewrap" | "process-group";

/** A program to start, without a shell. */
export interface Launch {
  readonly executable: string;
  readonly args: readonly string[];
}

/** Where a launch runs, for the containments that mount a view of the filesystem. */
export interface LaunchSite {
  readonly cwd: string;
  readonly workspace?: string;
  readonly scratchDir?: string;
  /** Whether the workspace is writable; bubblewrap binds it read-only otherwise. */
  readonly workspaceWritable: boolean;
  /**
   * Inherited descriptors the launch must close before the command runs; default those this
   * process was started with. None when the host's launcher starts it, which closed its own.
   */
  readonly inheritedDescriptors?: readonly number[];
}

export interface Containment {
  readonly kind: ContainmentKind;
  /** One line saying what is in force, for `pablo tools --explain` and the audit record. */
  readonly summary: string;
  /** Whether the launch's descendants share a PID namespace of their own. */
  readonly namespaced: boolean;
  /**
   * The launch to spawn instead of `launch`: it closes every inherited descriptor above 2 and then
   * runs `launch` under this containment.
   */
  wrap(launch: Launch, site: LaunchSite): Launch;
}

/** Where util-linux unshare is looked for; never through PATH. */
export const UNSHARE_PATHS: readonly string[] = Object.freeze(["/usr/bin/unshare", "/bin/unshare"]);

/**
 * The containment `[options.sandbox]` asks for. `local` uses a PID namespace when the host allows
 * one (probed once per process, on first use) and the process group otherwise; `bubblewrap` throws
 * {@link PabloError} `SANDBOX_UNAVAILABLE` when bwrap is missing or cannot start here — never a
 * silent fallback. `virtual` has no processes at all and is refused here too.
 */
export function containmentFor(options: ResolvedSandboxOptions = resolveSandboxOptions()): Containment {
  switch (options.kind) {
    case "bubblewrap":
      return bubblewrapContainment(options);
    case "virtual":
      throw new PabloError(
        ShellOptionsErrorCode.SANDBOX_UNAVAILABLE,
        'options.sandbox.kind = "virtual" runs no commands: shell.run is not attached in a virtual sandbox',
      );
    case "local":
      return options.pidNamespace ? localContainment() : processGroupContainment();
  }
}

export interface LocalContainmentOptions {
  /**
   * Mount a /proc that shows only the namespace (default true), so `ps` and `$$` agree with what
   * the command started. A long-lived server that reports its host PID (`/proc/self`) wants false.
   */
  readonly privateProc?: boolean;
}

/**
 * A PID namespace made by unshare when the host allows it, otherwise the process group. Which one
 * is decided on first use (a launch, or reading `kind`, `summary` or `namespaced`, as
 * `pablo tools --explain` and the audit record do), not when the containment is made: the probe
 * starts a process, and listing or calling tools that run none should not pay for it.
 */
export function localContainment(options: LocalContainmentOptions = {}): Containment {
  let decided: Containment | undefined;
  const decide = (): Containment => {
    decided ??= probedLocalContainment(options);
    return decided;
  };
  return {
    get kind() {
      return decide().kind;
    },
    get summary() {
      return decide().summary;
    },
    get namespaced() {
      return decide().namespaced;
    },
    wrap: (launch, site) => decide().wrap(launch, site),
  };
}

function probedLocalContainment(options: LocalContainmentOptions): Containment {
  const probedFlags = unshareFlags();
  if (!probedFlags) return processGroupContainment();
  const unshare =
    options.privateProc === false
      ? { ...probedFlags, flags: probedFlags.flags.filter((flag) => flag !== "--mount-proc") }
      : probedFlags;
  return {
    kind: "pid-namespace",
    summary: `each command runs in a new PID namespace (${unshare.path}); every descendant ends with it`,
    namespaced: true,
    wrap: (launch, site) => {
      const inner = closeInheritedDescriptors(
        launch,
        site.inheritedDescriptors ?? hostInheritedDescriptors(),
      );
      return { executable: unshare.path, args: [...unshare.flags, inner.executable, ...inner.args] };
    },
  };
}

/** The process group and run marker alone; what could not be proven gone fails the call. */
export function processGroupContainment(): Containment {
  return {
    kind: "process-group",
    summary:
      "no PID namespace: the process group and the run marker find descendants; one that left both fails the call with TOOL_CLEANUP_FAILED",
    namespaced: false,
    wrap: (launch, site) =>
      closeInheritedDescriptors(launch, site.inheritedDescriptors ?? hostInheritedDescriptors()),
  };
}

function bubblewrapContainment(options: ResolvedSandboxOptions): Containment {
  const bwrap = options.bwrapPath ?? BWRAP_PATHS.find((path) => existsSync(path));
  if (!bwrap || !existsSync(bwrap)) {
    throw new PabloError(
      ShellOptionsErrorCode.SANDBOX_UNAVAILABLE,
      `options.sandbox.kind = "bubblewrap" but bwrap was not found (${options.bwrapPath ?? BWRAP_PATHS.join(", ")}); install bubblewrap or choose another sandbox`,
      { bwrap: options.bwrapPath ?? null },
    );
  }
  const probeArgs = [...systemBinds(options.systemPaths), "--unshare-all", "--die-with-parent", "/bin/true"];
  const outer = outerNamespace(bwrap, probeArgs);
  const probe = outer ? undefined : probeRun(bwrap, probeArgs);
  if (probe !== undefined && probe.status !== 0) {
    throw new PabloError(
      ShellOptionsErrorCode.SANDBOX_UNAVAILABLE,
      `options.sandbox.kind = "bubblewrap" but ${bwrap} cannot make a sandbox here: ${probe.why}`,
      { bwrap },
    );
  }
  const confinement = `each command runs under ${bwrap}: system directories read-only, private /tmp, no home directory, ${options.net ? "the host network" : "no network"}`;
  return {
    kind: "bubblewrap",
    summary: outer
      ? confinement
      : `${confinement}; no outer PID namespace here, so a call can return while the last of a command's processes are still being ended`,
    namespaced: true,
    wrap: (launch, site) => {
      // The scratch directory is made on first use (seed 001 4b); a command is a use, and
      // bubblewrap can only bind a directory that exists.
      if (site.scratchDir) mkdirSync(site.scratchDir, { recursive: true, mode: 0o700 });
      const inner = closeInheritedDescriptors(
        launch,
        site.inheritedDescriptors ?? hostInheritedDescriptors(),
      );
      const sandboxed = [...bubblewrapArgs(options, site), inner.executable, ...inner.args];
      return outer
        ? { executable: outer.path, args: [...outer.flags, bwrap, ...sandboxed] }
        : { executable: bwrap, args: sandboxed };
    },
  };
}

/**
 * The unshare launch that starts bwrap as the first process of a PID namespace of its own, when it
 * works here with bwrap inside. bwrap's monitor exits as soon as the command does, before its init
 * has ended what is left in the sandbox's namespace; with hundreds of processes left that teardown
 * outlasted the call. Inside the outer namespace, bwrap's exit makes the kernel end every process
 * in it, the sandbox's namespace nested within included, before unshare sees that exit: the call
 * returns only once all of them are gone, as with the local containment.
 */
function outerNamespace(bwrap: string, probeArgs: readonly string[]): UnshareLaunch | undefined {
  const unshare = unshareFlags();
  if (!unshare) return undefined;
  // bwrap mounts the sandbox's own /proc; the outer namespace needs none.
  const outer = { ...unshare, flags: unshare.flags.filter((flag) => flag !== "--mount-proc") };
  return probeRun(outer.path, [...outer.flags, bwrap, ...probeArgs]).status === 0 ? outer : undefined;
}

function probeRun(executable: string, args: readonly string[]): { status: number | null; why: string } {
  const { spawnSync } = onDemand.childProcess();
  const probe = spawnSync(executable, args, { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000 });
  const why = probe.error?.message ?? (probe.stderr?.toString("utf8").trim() || `status ${probe.status}`);
  return { status: probe.status, why };
}

/**
 * bubblewrap's arguments, in mount order: the system read-only, fresh /dev, /proc and /tmp, then
 * the workspace and the scratch directory on top (both usually live under /tmp), so nothing else
 * of the host, the home directory included, is visible.
 */
export function bubblewrapArgs(options: ResolvedSandboxOptions, site: LaunchSite): string[] {
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    ...(options.net ? ["--share-net"] : []),
    ...systemBinds(options.systemPaths),
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
  ];
  if (site.workspace)
    args.push(site.workspaceWritable ? "--bind" : "--ro-bind", site.workspace, site.workspace);
  if (site.scratchDir) args.push("--bind", site.scratchDir, site.scratchDir);
  args.push("--chdir", site.cwd);
  return args;
}

/** Read-only binds of the system directories; a merged-/usr link stays a link. */
function systemBinds(paths: readonly string[]): string[] {
  const args: string[] = [];
  for (const path of paths) {
    let link: string | undefined;
    try {
      link = lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
    } catch {
      continue;
    }
    if (link !== undefined) args.push("--symlink", link, path);
    else args.push("--ro-bind", path, path);
  }
  return args;
}

interface UnshareLaunch {
  readonly path: string;
  readonly flags: readonly string[];
}

let probed: UnshareLaunch | null | undefined;

/**
 * The unshare invocation that works here, found once per process: as root a PID and mount
 * namespace (for a /proc that shows only the run), otherwise the same inside a user namespace
 * mapping the current user. `--kill-child` ends the namespace if unshare itself is killed.
 */
function unshareFlags(): UnshareLaunch | undefined {
  if (probed !== undefined) return probed ?? undefined;
  probed = null;
  if (process.platform !== "linux") return undefined;
  const path = UNSHARE_PATHS.find((candidate) => existsSync(candidate));
  if (!path) return undefined;
  const base = ["--pid", "--fork", "--kill-child", "--mount-proc"];
  const attempts = process.getuid?.() === 0 ? [base] : [["--user", "--map-current-user", ...base]];
  const { spawnSync } = onDemand.childProcess();
  for (const flags of attempts) {
    const run = spawnSync(path, [...flags, "/bin/true"], { stdio: "ignore", timeout: 5_000 });
    if (run.status === 0) {
      probed = { path, flags: [...flags, "--"] };
      break;
    }
  }
  return probed ?? undefined;
}
