import { CliErrorCode } from "./error-codes.js";

/**
 * The last resort: a fault no command turned into a message (a module that failed to load, a
 * throw in a timer) still ends as one coded line, never a stack trace. `PABLO_DEBUG=1` adds the
 * stack for whoever debugs Pablo itself. Imports only the dependency-free code register, so it works
 * when everything else fails to load.
 */
export function describeFault(error: unknown): string {
  const raw = error instanceof Error && "code" in error ? String((error as { code: unknown }).code) : "";
  // Only a code-shaped value is a code; Node's own `ERR_*` codes are kept, anything else is not.
  const code = /^[A-Z][A-Z0-9_]{2,63}$/.test(raw) ? raw : CliErrorCode.INTERNAL_ERROR;
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ");
  const stack = process.env["PABLO_DEBUG"] === "1" && error instanceof Error ? `\n${error.stack}` : "";
  return `${message} [${code}]${stack}`;
}
