import { randomUUID } from "node:crypto";
import {
  ErrorCode,
  fail,
  type OperatingMode,
  type PermissionMode,
  type ToolContext,
  type ToolResult,
} from "@pablo/kernel";
import { cleanEnvironment, RUN_MARKER_VARIABLE } from "./clean-env.js";
import { parseCommandLine } from "./command-parser.js";
import type { Containment } from "./containment.js";
import { readyLauncher } from "./launcher.js";
import { lastPatchCommand } from "./patch-commands.js";
import { countPatchFailure } from "./patch-failures.js";
import { type PlanDeps, prepareCall } from "./plan-call.js";
import { type ProcessControl, procProcessControl } from "./proc-processes.js";
import type { Redactor } from "./redact.js";
import { redactingStream, redactResult, shellRedactor } from "./redact-output.js";
import { runProcess } from "./run-process.js";
import { shellResult } from "./shell-result.js";
import { DEFAULT_MAX_OUTPUT_BYTES, type ShellRunArgs } from "./shell-schema.js";
import type { ShellToolConfig } from "./shell-tool.js";

/** What `createShellTool` settled when it made the tool, shared by all of its calls. */
export interface ShellRunDeps {
  readonly config: ShellToolConfig;
  readonly containment: Containment;
  /** The plan's dependencies, with the options resolved once when the tool was made. */
  readonly plan: PlanDeps;
  /** `config.processes`, or `/proc` from the first call on. */
  control?: ProcessControl;
  /** Made on the first call, so that listing the tool never loads the RE2 engine. */
  redactor?: Promise<Redactor | undefined>;
}

/** One shell.run call: the command run under the tool's containment, its result shaped and redacted. */
export async function runShell(
  deps: ShellRunDeps,
  args: ShellRunArgs,
  ctx: ToolContext,
): Promise<ToolResult> {
  const { config, containment } = deps;
  const { options } = deps.plan;
  const permission = config.permission ?? "ask";
  const plan = await prepareCall(args, ctx, deps.plan);
  if ("ok" in plan) return plan;
  if (ctx.signal.aborted)
    return fail(ErrorCode.TOOL_CANCELLED, "the call was cancelled before the command started");
  deps.redactor ??= shellRedactor(options.redact);
  const redact = await deps.redactor;
  deps.control ??= config.processes ?? procProcessControl();
  const control = deps.control;
  const marker = randomUUID();
  const env = cleanEnvironment({
    marker,
    path: plan.path,
    ...(config.scratchDir ? { scratchDir: config.scratchDir } : {}),
    ...(args.env ? { additions: args.env } : {}),
  });
  const launcher = config.launcher === false ? undefined : readyLauncher();
  const launch = containment.wrap(
    { executable: plan.shell.path, args: [...plan.shell.args, args.command] },
    {
      cwd: plan.cwd,
      workspace: config.workspace,
      ...(config.scratchDir ? { scratchDir: config.scratchDir } : {}),
      workspaceWritable: workspaceWritable(permission, ctx.mode),
      ...(launcher ? { inheritedDescriptors: [] } : {}),
    },
  );
  const stream = redact ? redactingStream(redact, (kind, data) => ctx.progress({ kind, data })) : undefined;
  const outcome = await runProcess({
    executable: launch.executable,
    args: launch.args,
    namespaced: containment.namespaced,
    ...(launcher ? { launcher } : {}),
    cwd: plan.cwd,
    env,
    marker: `${RUN_MARKER_VARIABLE}=${marker}`,
    timeoutMs: plan.timeoutMs,
    maxOutputBytes: args.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    signal: ctx.signal,
    onOutput: (kind, data) => (stream ? stream.push(kind, data) : ctx.progress({ kind, data })),
    control,
    killGraceMs: options.killGraceMs,
    cleanupMs: options.cleanupMs,
  });
  stream?.flush();
  const shaped = shellResult(outcome, {
    maxLines: options.maxLines,
    maxChars: options.maxChars,
    timeoutMs: plan.timeoutMs,
    shell: plan.shell.path,
  });
  const result = withContainment(containment, redact ? redactResult(shaped, redact) : shaped);
  const patch = lastPatchCommand(
    args.command,
    parseCommandLine(args.command, { maxLength: options.maxCommandLength }),
  );
  if (!patch) return result;
  const site = { workspace: config.workspace, cwd: plan.cwd, scratchDir: config.scratchDir };
  return countPatchFailure(result, patch, site, ctx);
}

/** Seed 001: Plan and Goal do not write unless the permission mode is `auto`; `read-only` never does. */
function workspaceWritable(permission: PermissionMode, mode: OperatingMode): boolean {
  if (permission === "read-only") return false;
  return mode === "agent" || permission === "auto";
}

/** The audit record says which containment was in force for the call. */
function withContainment(containment: Containment, result: ToolResult): ToolResult {
  return { ...result, auditNotes: { ...result.auditNotes, containment: containment.kind } };
}
