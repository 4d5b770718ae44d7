import Type, { type Static } from "typebox";

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
export const MAX_OUTPUT_BYTES_LIMIT = 8 * 1024 * 1024;

/** The closed input schema of shell.run; the timeout's maximum is the deployment's shell deadline. */
export function shellRunSchema(deadlineMs: number, defaultTimeoutMs: number) {
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
          minimum: 1,
          maximum: deadlineMs,
          description: `Milliseconds before the command and everything it started are ended. Default ${defaultTimeoutMs}.`,
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
        Type.Record(Type.String({ pattern: "^PABLO_TASK_[A-Za-z0-9_]*$" }), Type.String(), {
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
