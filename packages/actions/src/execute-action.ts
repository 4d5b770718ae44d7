import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { ErrorCode, fail, type JsonValue, ok, type ToolResult } from "@pablo/kernel";
import { expandTemplate, type ParamValue } from "./arg-template.js";
import { ActionsErrorCode } from "./errors.js";
import { applyFilters, type FilterInput } from "./filters.js";
import type { ActionStep, LoadedAction } from "./loaded-action.js";
import { OutputBudget } from "./output-budget.js";
import { checkProgram } from "./program-check.js";
import { type ProgramOutcome, runProgram } from "./run-program.js";

/** A validated call: parameter values and the filters the action declares. */
export interface ActionCall {
  readonly params: Readonly<Record<string, ParamValue>>;
  readonly filters: FilterInput;
}

export interface ExecuteContext {
  readonly signal: AbortSignal;
  /** Epoch milliseconds after which the call is over, whatever the action's own timeout says. */
  readonly deadline: number;
}

/** What one step reports. Skipped steps stay in the list so that nothing is silently left out. */
export interface StepReport {
  readonly name: string;
  readonly skipped?: true;
  readonly exitCode?: number | null;
  readonly signal?: string;
  /** The executable that ran: the primary, or the fallback used because the primary is missing. */
  readonly executable?: string;
  readonly stdout?: string;
  readonly stderr?: string;
  /** Raw stdout bytes the step wrote. */
  readonly stdoutBytes?: number;
  /** Stdout went past `max_scan`: only its first `max_scan` bytes were redacted and filtered. */
  readonly scanLimited?: boolean;
  /** Output was cut to fit the action's output budget. */
  readonly truncated?: boolean;
  /** Lines after `match` / `exclude`. */
  readonly lines?: number;
  readonly count?: number;
  readonly error?: string;
  /** A registered code for `error`: `EXECUTABLE_MISSING` when neither executable nor fallback exists. */
  readonly code?: ActionsErrorCode;
}

/**
 * Runs an exec, steps or script action: each step in order within one timeout and one output
 * budget, without a shell, in a private temporary directory removed afterwards. Raw output is
 * redacted as soon as a step ends, then filtered; nothing unredacted is kept. The exit code is
 * the first failed step's, or zero; with `on_error: stop` the steps after a failure are reported
 * as skipped.
 */
export async function executeProgramAction(
  action: LoadedAction,
  call: ActionCall,
  context: ExecuteContext,
): Promise<ToolResult> {
  const deadline = performance.now() + Math.min(action.timeoutMs, Math.max(0, context.deadline - Date.now()));
  const budget = new OutputBudget(action.maxOutputBytes);
  const workDir = await mkdtemp(join(tmpdir(), "pablo-action-"));
  try {
    await chmod(workDir, 0o700);
    const plans = action.script
      ? [await scriptStep(action, call, workDir)]
      : action.steps.map((s) => planStep(s, call));
    const reports: StepReport[] = [];
    let exitCode = 0;
    for (const plan of plans) {
      if (exitCode !== 0 && action.onError === "stop") {
        reports.push({ name: plan.name, skipped: true });
        continue;
      }
      if ("missing" in plan) {
        reports.push({
          name: plan.name,
          exitCode: 127,
          code: ActionsErrorCode.EXECUTABLE_MISSING,
          error: plan.missing,
        });
        if (exitCode === 0) exitCode = 127;
        continue;
      }
      if (!action.script) {
        const checked = checkProgram(plan.argv, action.spec.allow_interpreter === true, plan.fromParams);
        if (!checked.ok)
          return fail(ActionsErrorCode.INTERPRETER_REFUSED, `step ${plan.name}: ${checked.reason}`);
      }
      const outcome = await runProgram({
        argv: plan.argv,
        cwd: workDir,
        maxScanBytes: action.maxScanBytes,
        maxStderrBytes: Math.min(action.maxOutputBytes, 64 * 1024),
        deadline,
        signal: context.signal,
      });
      const report = stepReport(action, plan, outcome, call.filters, budget);
      reports.push(report);
      const ended = endFailure(outcome, reports, action);
      if (ended) return ended;
      if (exitCode === 0 && report.exitCode !== 0) exitCode = report.exitCode ?? 128;
    }
    const data = { exitCode, steps: reports as unknown as JsonValue };
    if (exitCode === 0) return ok(data, { auditNotes: { exitCode } });
    const failed = reports.find((r) => r.exitCode !== undefined && r.exitCode !== 0);
    return fail(ErrorCode.TOOL_FAILED, `step ${failed?.name} exited with status ${exitCode}`, data);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

type StepPlan =
  | { readonly name: string; readonly argv: string[]; readonly fromParams: ReadonlySet<number> }
  | { readonly name: string; readonly missing: string };

/** The step's argument array, with the first existing of its executable and fallbacks. */
function planStep(step: ActionStep, call: ActionCall): StepPlan {
  const { argv, fromParams } = expandTemplate(step.exec, call.params);
  const primary = argv[0] ?? "";
  // A fallback stands in only for an executable that does not exist, never for one that failed.
  const executable = [primary, ...step.fallbacks].find((path) => existsSync(path));
  if (executable === undefined) {
    return {
      name: step.name,
      missing: `none of ${[primary, ...step.fallbacks].join(", ")} exists on this host`,
    };
  }
  return { name: step.name, argv: [executable, ...argv.slice(1)], fromParams };
}

/** Writes the signed script into the private directory and runs it with its interpreter. */
async function scriptStep(action: LoadedAction, call: ActionCall, workDir: string): Promise<StepPlan> {
  const script = action.script;
  if (!script) throw new Error("not a script action");
  if (!existsSync(script.interpreter)) {
    return { name: "script", missing: `the interpreter ${script.interpreter} does not exist on this host` };
  }
  const path = join(workDir, basename(script.file));
  await writeFile(path, script.bytes, { mode: 0o500, flag: "wx" });
  const { argv, fromParams } = expandTemplate(script.args, call.params);
  // Python's isolated mode ignores PYTHON* variables, the user site directory and the script's
  // own directory on sys.path.
  const isolation = /^python[0-9.]*$/.test(basename(script.interpreter)) ? ["-I"] : [];
  const prefix = [script.interpreter, ...isolation, path];
  const shifted = new Set([...fromParams].map((i) => i + prefix.length));
  return { name: "script", argv: [...prefix, ...argv], fromParams: shifted };
}

function stepReport(
  action: LoadedAction,
  plan: Extract<StepPlan, { argv: string[] }>,
  outcome: ProgramOutcome,
  filters: FilterInput,
  budget: OutputBudget,
): StepReport {
  const scanLimited = outcome.stdoutBytes > action.maxScanBytes;
  // Redact first, on the raw text as read, then filter: a filter never sees a secret. Past the scan
  // bound the last, cut-off line is dropped, since a secret cut in half no longer looks like one.
  const raw = outcome.stdout.toString("utf8");
  const scanned = scanLimited ? raw.slice(0, raw.lastIndexOf("\n") + 1) : raw;
  const filtered = applyFilters(action.redact(scanned), filters);
  const stderr = action.redact(outcome.stderr.toString("utf8"));
  const stdoutCut = budget.take(filtered.text);
  const stderrCut = budget.take(stderr);
  const { end } = outcome;
  return {
    name: plan.name,
    executable: plan.argv[0] ?? "",
    ...(end.kind === "exited" ? { exitCode: end.exitCode ?? 128 } : {}),
    ...(end.kind === "exited" && end.signal ? { signal: end.signal } : {}),
    ...(end.kind === "spawn-failed" ? { exitCode: 126, error: `could not start: ${end.code}` } : {}),
    stdout: stdoutCut.text,
    stderr: stderrCut.text,
    stdoutBytes: outcome.stdoutBytes,
    scanLimited,
    truncated: stdoutCut.truncated || stderrCut.truncated || outcome.stderrBytes > outcome.stderr.length,
    lines: filtered.lines,
    ...(filtered.count !== undefined ? { count: filtered.count } : {}),
  };
}

/** A run that did not end by itself ends the action: cleanup failure, timeout or cancellation. */
function endFailure(
  outcome: ProgramOutcome,
  reports: StepReport[],
  action: LoadedAction,
): ToolResult | undefined {
  const details = { steps: reports as unknown as JsonValue };
  if (outcome.survivors > 0) {
    return fail(ErrorCode.TOOL_CLEANUP_FAILED, "could not end every process of the step", details);
  }
  if (outcome.end.kind === "timeout") {
    return fail(
      ErrorCode.TOOL_TIMEOUT,
      `the action did not finish within ${action.timeoutMs} ms and was ended`,
      details,
    );
  }
  if (outcome.end.kind === "cancelled")
    return fail(ErrorCode.TOOL_CANCELLED, "the action was cancelled and ended", details);
  return undefined;
}
