import { redactValue } from "@pablo/kernel";
import { UsageError } from "../args.js";
import type { TaskEnvironment } from "../distribution.js";
import { Exit, exitCodeFor } from "../exit-codes.js";
import { type Io, printJson } from "../output.js";

/**
 * `pablo call TOOL --args JSON [--dry-run] [--json]`: one call through the full pipeline. With
 * `--json` it prints the result object exactly as a model would receive it; with `--dry-run` the
 * decision the real call would get (the kernel decides both with one function), exiting 0 when
 * the call would run or ask (only on a terminal, where someone can answer) and 3 when it is denied.
 */
export async function callCommand(
  io: Io,
  task: TaskEnvironment,
  options: { tool: string; args: string; dryRun: boolean; json: boolean },
): Promise<number> {
  if (options.dryRun) {
    const decision = await task.session.dryRun({ tool: options.tool, args: options.args });
    const printable = {
      decision: decision.decision,
      layer: decision.layer,
      rule: decision.rule,
      reason: decision.reason,
      ...(decision.code ? { code: decision.code } : {}),
    };
    if (options.json) printJson(io, printable);
    else io.stdout(`${decision.decision} (${decision.layer}/${decision.rule}): ${decision.reason}\n`);
    if (decision.decision === "deny")
      return decision.code === "UNKNOWN_TOOL" || decision.code === "INVALID_ARGUMENT"
        ? Exit.USAGE
        : Exit.DENIED;
    return Exit.OK;
  }
  const outcome = await task.session.call({ tool: options.tool, args: options.args, signal: io.signal });
  // Whoever reads the log on the printed outcome finds the call's record there.
  await task.session.flushAudit();
  const scrubbed = scrub(outcome.serialized, task.credentials.resolvedValues());
  if (options.json) {
    io.stdout(`${scrubbed}\n`);
  } else if (outcome.result.ok) {
    const data = outcome.result.data;
    io.stdout(typeof data === "string" ? `${data}\n` : `${JSON.stringify(data, null, 2)}\n`);
  } else {
    const { code, message } = outcome.result.error;
    io.stderr(
      `pablo: ${outcome.result.ok ? "" : code}: ${scrub(message, task.credentials.resolvedValues())}\n`,
    );
    const details = outcome.result.error.details;
    if (details)
      io.stderr(
        `${scrub(JSON.stringify(redactValue(details), null, 2), task.credentials.resolvedValues())}\n`,
      );
  }
  return exitCodeFor(outcome.result);
}

/** Validates `--args` early so a typo in the shell is a usage error, not a tool failure. */
export function requireArgs(value: unknown): string {
  if (value === undefined) return "{}";
  if (typeof value !== "string") throw new UsageError("--args expects a JSON object");
  try {
    const parsed = JSON.parse(value) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new Error("not an object");
  } catch {
    throw new UsageError(`--args is not a JSON object: ${value.slice(0, 80)}`);
  }
  return value;
}

/** Credential values never reach output, whatever a tool echoed. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[REDACTED]");
  return out;
}
