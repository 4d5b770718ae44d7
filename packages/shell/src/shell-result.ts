import { type AuditNotes, ErrorCode, fail, ok, type ToolResult } from "@pablo/kernel";
import type { RunOutcome } from "./run-process.js";
import { truncateCaptured } from "./truncate-output.js";

export interface ResultBounds {
  readonly maxLines: number;
  readonly maxChars: number;
  readonly timeoutMs: number;
  readonly shell: string;
}

/**
 * What the model receives for a finished run. Output is cut by the truncator; the exit status
 * passes through untouched. Cleanup that could not be proven outranks every other outcome.
 */
export function shellResult(outcome: RunOutcome, bounds: ResultBounds): ToolResult {
  const cut = { maxLines: bounds.maxLines, maxChars: bounds.maxChars };
  const output = {
    stdout: truncateCaptured(outcome.stdout, cut),
    stderr: truncateCaptured(outcome.stderr, cut),
    stdoutBytes: outcome.stdout.totalBytes,
    stderrBytes: outcome.stderr.totalBytes,
  };
  const { end } = outcome;
  const exit =
    end.kind === "exited" ? { exitCode: end.exitCode, ...(end.signal ? { signal: end.signal } : {}) } : {};
  const notes: AuditNotes = {
    stdoutBytes: output.stdoutBytes,
    stderrBytes: output.stderrBytes,
    endedProcesses: outcome.ended,
    ...(end.kind === "exited" && end.exitCode !== null ? { exitCode: end.exitCode } : {}),
  };
  const withNotes = (result: ToolResult): ToolResult => ({ ...result, auditNotes: notes });

  if (outcome.survivors.length > 0) {
    const named = outcome.survivors.map((p) => (p.pid > 0 ? `pid ${p.pid} (${p.name})` : p.name));
    return withNotes(
      fail(
        ErrorCode.TOOL_CLEANUP_FAILED,
        `could not end every process of the run; still running: ${named.join(", ")}`,
        {
          survivors: outcome.survivors.map((p) => ({ pid: p.pid, name: p.name })),
          ...exit,
          ...output,
        },
      ),
    );
  }
  switch (end.kind) {
    case "spawn-failed":
      return withNotes(
        fail(ErrorCode.TOOL_FAILED, `could not start ${bounds.shell}: ${end.message}`, { code: end.code }),
      );
    case "timeout":
      return withNotes(
        fail(
          ErrorCode.TOOL_TIMEOUT,
          `the command did not finish within ${bounds.timeoutMs} ms and was ended`,
          {
            timeoutMs: bounds.timeoutMs,
            ...output,
          },
        ),
      );
    case "cancelled":
      return withNotes(fail(ErrorCode.TOOL_CANCELLED, "the command was cancelled and ended", output));
    case "exited":
      if (end.exitCode === 0) return withNotes(ok({ exitCode: 0, ...output }));
      return withNotes(
        fail(
          ErrorCode.TOOL_FAILED,
          end.exitCode !== null
            ? `the command exited with status ${end.exitCode}`
            : end.signal !== null
              ? `the shell was killed by ${end.signal}`
              : "the command ended, but its exit status was lost: the process launcher ended first",
          { ...exit, ...output },
        ),
      );
  }
}
