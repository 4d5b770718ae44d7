import type { ToolResult } from "@pablo/kernel";
import type { Redactor } from "./redact.js";

/** Longest incomplete line held back from streaming; a longer one is redacted and sent as it is. */
const MAX_HELD_CHARS = 64 * 1024;

/**
 * `[options.shell] redact`: one redactor for a deployment, or none. A secret split across two
 * streamed chunks must still be caught, so streamed output is passed on whole lines at a time.
 * The RE2 engine (re2js, about 11 ms to load) is imported only when there is something to redact:
 * this is the shell tool's one lazy boundary for it.
 */
export async function shellRedactor(sets: readonly "secrets"[]): Promise<Redactor | undefined> {
  if (sets.length === 0) return undefined;
  const { createRedactor } = await import("./redact.js");
  return createRedactor({ builtin: sets });
}

/** Wraps a progress sink so that it only ever sees redacted, whole lines (flush sends the rest). */
export function redactingStream(
  redact: Redactor,
  emit: (kind: string, text: string) => void,
): { push(kind: string, text: string): void; flush(): void } {
  const held = new Map<string, string>();
  return {
    push(kind, text) {
      const pending = (held.get(kind) ?? "") + text;
      const cut = pending.lastIndexOf("\n") + 1;
      const ready = pending.length > MAX_HELD_CHARS ? pending.length : cut;
      if (ready > 0) emit(kind, redact(pending.slice(0, ready)));
      held.set(kind, pending.slice(ready));
    },
    flush() {
      for (const [kind, rest] of held) if (rest !== "") emit(kind, redact(rest));
      held.clear();
    },
  };
}

/** The result with every stdout and stderr text redacted, in data and in failure details alike. */
export function redactResult(result: ToolResult, redact: Redactor): ToolResult {
  const scrub = (record: Readonly<Record<string, unknown>>) => {
    const copy: Record<string, unknown> = { ...record };
    for (const key of ["stdout", "stderr"])
      if (typeof copy[key] === "string") copy[key] = redact(copy[key] as string);
    return copy;
  };
  if (result.ok) {
    const data = result.data;
    if (data === null || typeof data !== "object" || Array.isArray(data)) return result;
    return { ...result, data: scrub(data) as typeof data };
  }
  if (!result.error.details) return result;
  return { ...result, error: { ...result.error, details: scrub(result.error.details) } };
}
