import { StringRecord } from "@pablo/kernel";
import Type, { type Static } from "typebox";

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
export const MAX_OUTPUT_BYTES_LIMIT = 8 * 1024 * 1024;

/** Seed 001 §5: a mandatory 60 s timeout, and only a bounded 1 s to 300 s override. */
export const DEFAULT_TIMEOUT_MS = 60_000;
export const MIN_TIMEOUT_MS = 1_000;
export const MAX_TIMEOUT_MS = 300_000;

/**
 * The closed input schema of shell.run. The timeout's maximum is the smaller of 300 s and the
 * host's shell deadline, already folded into `maxTimeoutMs`.
 */
export function shellRunSchema(maxTimeoutMs: number, defaultTimeoutMs: number) {
  return Type.Object(
    {
      command: Type.String({
        minLength: 1,
        description:
          "Command line run non-interactively by the pinned shell (`/bin/sh -c` by default), stdin closed.",
      }),
      cwd: Type.Optional(
        Type.String({
          minLength: 1,
          description:
            "Working directory inside the workspace, relative to its root. Default: the workspace root.",
        }),
      ),
      timeout_ms: Type.Optional(
        Type.Integer({
          minimum: MIN_TIMEOUT_MS,
          maximum: maxTimeoutMs,
          description: `Milliseconds before the command and everything it started are ended, ${MIN_TIMEOUT_MS} to ${maxTimeoutMs}. Default ${defaultTimeoutMs}.`,
        }),
      ),
      max_output_bytes: Type.Optional(
        Type.Integer({
          minimum: 1024,
          maximum: MAX_OUTPUT_BYTES_LIMIT,
          description: `Bytes of each stream kept (first and last halves) before truncation. Default ${DEFAULT_MAX_OUTPUT_BYTES}.`,
        }),
      ),
      env: Type.Optional(
        StringRecord(Type.String({ pattern: "^PABLO_TASK_[A-Za-z0-9_]*$" }), Type.String(), {
          additionalProperties: false,
          description: "Environment additions; only names beginning with PABLO_TASK_ are accepted.",
        }),
      ),
    },
    { additionalProperties: false },
  );
}

export type ShellRunSchema = ReturnType<typeof shellRunSchema>;
export type ShellRunArgs = Static<ShellRunSchema>;
