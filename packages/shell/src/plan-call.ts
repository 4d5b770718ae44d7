import {
  type Access,
  ErrorCode,
  fail,
  type ToolContext,
  type ToolErrorInfo,
  type ToolFailure,
} from "@pablo/kernel";
import { CLEAN_PATH, invalidAddition } from "./clean-env.js";
import { commandAccesses, isCompound } from "./command-accesses.js";
import { type ParsedCommandLine, parseCommandLine } from "./command-parser.js";
import type { ResolvedShellOptions } from "./options.js";
import { findShell, lookupShell, pinShell, type ShellEntry, type ShellLookup } from "./shell-catalog.js";
import { MAX_TIMEOUT_MS, MIN_TIMEOUT_MS, type ShellRunArgs } from "./shell-schema.js";

/**
 * Resolves a working directory inside the workspace, with the same containment as @pablo/fs.
 * Contract: must not throw for anything a model supplied; returns a failure result instead.
 */
export type ResolveCwd = (
  workspace: string,
  path: string,
) => Promise<{ ok: true; path: string } | { ok: false; error: ToolErrorInfo }>;

export interface PlanDeps {
  readonly workspace: string;
  readonly options: ResolvedShellOptions;
  readonly resolveCwd: ResolveCwd;
  /** The PATH commands run with, and that command words are resolved against. */
  readonly commandPath: () => Promise<string>;
}

/** What running a call needs, checked before anything runs. */
export interface PreparedCall {
  readonly shell: ShellEntry;
  readonly cwd: string;
  readonly timeoutMs: number;
  /** The PATH exported to the command; command words were resolved against it. */
  readonly path: string;
}

/** A prepared call with the parsed line and the accesses the kernel decides on. */
export interface CallPlan extends PreparedCall {
  readonly parsed: ParsedCommandLine;
  readonly accesses: readonly Access[];
}

/** The construct a login shell is reported as to command rules. */
export const LOGIN_SHELL = "login shell start-up files";

/** The PATH of every command unless the deployment asks for the login shell's. */
export const fixedCommandPath = async (): Promise<string> => CLEAN_PATH;

/**
 * Plans one call for `accesses`: prepares it, then parses the command line into the accesses the
 * kernel decides on, so a dry run reports exactly the decision a call would get.
 */
export async function planCall(
  args: ShellRunArgs,
  ctx: ToolContext,
  deps: PlanDeps,
): Promise<CallPlan | ToolFailure> {
  const prepared = await prepareCall(args, ctx, deps);
  if ("ok" in prepared) return prepared;
  const parsed = parseCommandLine(args.command, { maxLength: deps.options.maxCommandLength });
  if (deps.options.compound === "deny" && isCompound(parsed)) {
    return fail(ErrorCode.TOOL_DENIED, 'lists and pipelines are refused by options.shell.compound = "deny"', {
      layer: "shell",
      rule: "shell.compound",
    });
  }
  const accesses: Access[] = [
    { dimension: "executable", path: prepared.shell.path },
    { dimension: "fs.read", path: prepared.cwd, root: "workspace" },
    ...commandAccesses(parsed, prepared.cwd, prepared.path.split(":")),
    // A login shell reads profile files first, which may change PATH or define a function named
    // like any command: no command rule can be proven against what it will run.
    ...(deps.options.login ? [{ dimension: "command" as const, unproven: LOGIN_SHELL }] : []),
  ];
  return { ...prepared, parsed, accesses };
}

/**
 * Checks the options and arguments, resolves (and with `pin`, pins for the turn) the shell and
 * contains the working directory. `execute` calls it again right before spawning, so containment
 * and the shell are re-checked at use.
 */
export async function prepareCall(
  args: ShellRunArgs,
  ctx: ToolContext,
  deps: PlanDeps,
  how: { readonly pin: boolean } = { pin: true },
): Promise<PreparedCall | ToolFailure> {
  const { options } = deps;
  if (!options.enabled) {
    return fail(ErrorCode.TOOL_DENIED, "shell.run is disabled by options.shell.enabled", {
      layer: "shell",
      rule: "shell.enabled",
    });
  }
  const badEnv = invalidAddition(args.env ?? {});
  if (badEnv) return fail(ErrorCode.INVALID_ARGUMENT, `env ${badEnv}`);
  const timeoutMs = args.timeout_ms ?? options.defaultTimeoutMs;
  if (timeoutMs < MIN_TIMEOUT_MS || timeoutMs > options.maxTimeoutMs) {
    return fail(
      ErrorCode.INVALID_ARGUMENT,
      `timeout_ms must be between ${MIN_TIMEOUT_MS} and ${options.maxTimeoutMs} ms, got ${timeoutMs}` +
        ` (the bound is ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS} ms, capped by the shell deadline of ${options.deadlineMs} ms)`,
      { minimumMs: MIN_TIMEOUT_MS, maximumMs: options.maxTimeoutMs, deadlineMs: options.deadlineMs },
    );
  }
  const lookup = shellLookup(options);
  const find = (id: ShellEntry["id"]) => findShell(id, lookup);
  const shell = how.pin
    ? pinShell(ctx, options.shell, find, lookup)
    : lookupShell(options.shell, find, lookup);
  if ("ok" in shell) return shell;
  const cwd = await deps.resolveCwd(deps.workspace, args.cwd ?? ".");
  if (!cwd.ok) return { ok: false, error: cwd.error };
  return { shell, cwd: cwd.path, timeoutMs, path: await deps.commandPath() };
}

function shellLookup(options: ResolvedShellOptions): ShellLookup {
  return { login: options.login, ...(options.bashPath !== undefined ? { bashPath: options.bashPath } : {}) };
}
