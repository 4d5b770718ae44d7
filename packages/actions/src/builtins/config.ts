import { compileValidator } from "@pablo/kernel";
import type { Static, TSchema } from "typebox";

/**
 * Checks a `builtin_config` against a handler's closed schema, whose maxima are the handler's
 * own limits: a value above one is refused rather than clamped, so a catalog never appears to
 * have widened a limit it could not.
 */
export function checkConfig<S extends TSchema>(
  schema: S,
  raw: unknown,
): { ok: true; config: Static<S> } | { ok: false; problem: string } {
  const validator = compileValidator(schema);
  if (validator.check(raw)) return { ok: true, config: raw as Static<S> };
  const issue = validator.issues(raw, 1)[0];
  return { ok: false, problem: `${issue?.path ?? "/"} ${issue?.message ?? "is invalid"}` };
}
