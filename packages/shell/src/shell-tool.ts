import { defineTool, type PermissionMode, type ToolDefinition } from "@pablo/kernel";
import { CLEAN_PATH } from "./clean-env.js";
import { type Containment, containmentFor } from "./containment.js";
import { defaultResolveCwd } from "./default-resolve-cwd.js";
import { onDemand } from "./on-demand.js";
import { type ResolvedShellOptions, resolveShellOptions, type ShellOptions } from "./options.js";
import { fixedCommandPath, type PlanDeps, planCall, type ResolveCwd } from "./plan-call.js";
import type { ProcessControl } from "./proc-processes.js";
import { resolveSandboxOptions, type SandboxOptions } from "./sandbox-options.js";
import type { ShellRunDeps } from "./shell-run.js";
import { MIN_TIMEOUT_MS, type ShellRunSchema, shellRunSchema } from "./shell-schema.js";

export interface ShellToolConfig {
  /** Canonical absolute path of the workspace root. */
  readonly workspace: string;
  /** `[options.shell]`; absent fields take their defaults. */
  readonly options?: ShellOptions;
  /** Contains `cwd` inside the workspace. Default: @pablo/fs's `resolveContainedDirectory`, symlinks refused. */
  readonly resolveCwd?: ResolveCwd;
  /** Exported to commands as PABLO_SCRATCH_DIR, and named in the description. */
  readonly scratchDir?: string;
  /** Finds and signals a run's processes. Default: `/proc`. */
  readonly processes?: ProcessControl;
  /** `[options.sandbox]`: where commands run. Default `local` (a PID namespace where the host allows one). */
  readonly sandbox?: SandboxOptions;
  /**
   * The session's permission mode. Under bubblewrap the workspace is read-only in the `read-only`
   * profile, and in Plan and Goal unless the mode is `auto`. Default `ask`.
   */
  readonly permission?: PermissionMode;
  /**
   * Whether commands are started by the host's launcher, a small long-lived process that forks
   * and execs them for a fraction of what forking Node costs (default true; see `readyLauncher`).
   * false spawns each one from this process.
   */
  readonly launcher?: boolean;
}

/**
 * The shell.run tool. Throws {@link PabloError} `INVALID_OPTIONS` or `COMMAND_SHELL_INVALID` when
 * the options are invalid, and `SANDBOX_UNAVAILABLE` when the sandbox asked for cannot be made
 * here (a missing bubblewrap, or `virtual`, which attaches no shell). Options are read once, here;
 * the shell entry is resolved again for every call, right before it runs.
 */
export function createShellTool(config: ShellToolConfig): ToolDefinition<ShellRunSchema> {
  const options = resolveShellOptions(config.options);
  const sandbox = resolveSandboxOptions(config.sandbox);
  const containment = containmentFor(sandbox);
  const deps: PlanDeps = {
    workspace: config.workspace,
    options,
    resolveCwd: config.resolveCwd ?? defaultResolveCwd,
    commandPath: options.loginPathProbe
      ? async () => (await (await onDemand.loginPath()).loginPath()) ?? CLEAN_PATH
      : fixedCommandPath,
  };
  // What a call needs beyond the plan (the runner, the launcher, output shaping) loads on the first call.
  const run: ShellRunDeps = { config, containment, plan: deps };
  return defineTool({
    name: "shell.run",
    // The description reads the containment only for bubblewrap, which was probed at admission: a
    // local one is decided on the first command, not when the tool is listed.
    description: description(
      options,
      config.scratchDir,
      sandbox.kind === "bubblewrap" ? containment : undefined,
    ),
    summary: "Run a non-interactive shell command in the workspace",
    inputSchema: shellRunSchema(options.maxTimeoutMs, options.defaultTimeoutMs),
    risk: "high",
    effects: ["process"],
    category: "process",
    mutates: true,
    async accesses(args, ctx) {
      const plan = await planCall(args, ctx, deps);
      return "ok" in plan ? plan : plan.accesses;
    },
    async execute(args, ctx) {
      return (await onDemand.run()).runShell(run, args, ctx);
    },
  });
}

/**
 * What the model reads about shell.run. It names the timeout bounds of this deployment, and the
 * scratch directory only when there is one, so the model is never told of a variable that is unset.
 */
function description(
  options: ResolvedShellOptions,
  scratchDir: string | undefined,
  bubblewrap: Containment | undefined,
): string {
  return [
    "Runs a command line non-interactively with the pinned shell (/bin/sh -c by default) in the workspace.",
    "stdin is closed; the environment is small and clean (fixed PATH, UTF-8 locale, no HOME or credentials); only PABLO_TASK_* variables may be added.",
    ...(scratchDir
      ? [
          "PABLO_SCRATCH_DIR holds the absolute path of this session's scratch directory, outside the workspace: put temporary files (one-off scripts, downloads, drafts) there rather than in the workspace.",
        ]
      : []),
    "stdout and stderr are returned separately, ANSI escapes removed, each cut to its last lines; a non-zero exit status is an error that keeps exitCode, stdout and stderr.",
    `The timeout is ${options.defaultTimeoutMs} ms unless timeout_ms asks for ${MIN_TIMEOUT_MS} to ${options.maxTimeoutMs} ms; the command and everything it starts are ended at the timeout.`,
    "Command rules may allow only some commands: globbing, expansions, substitutions, redirections and other dynamic shell constructs are then refused.",
    "A failed patch command (apply_patch, git apply, patch) may be retried once after re-reading its target; a second failure for the same file in one user prompt ends the turn.",
    ...(bubblewrap
      ? [
          `Commands run in a sandbox: ${bubblewrap.summary.replace(/^each command runs under \S+: /, "")}; only the workspace${scratchDir ? " and the scratch directory" : ""} can be written, and background processes end with the command.`,
        ]
      : []),
  ].join("\n");
}
