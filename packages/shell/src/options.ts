import { CommandRuleSchema, PabloError } from "@pablo/kernel";
import Type, { type Static } from "typebox";
import { Compile } from "typebox/compile";
import { DEFAULT_MAX_COMMAND_LENGTH } from "./command-parser.js";

/** `[options.shell.commands]`: command rules of a deployment, evaluated by the kernel's `command` dimension. */
export const ShellCommandsSchema = Type.Object(
  {
    default: Type.Optional(
      Type.Union([Type.Literal("allow"), Type.Literal("deny")], {
        description: "Verdict for a command no rule matches when the allow list is empty.",
      }),
    ),
    allow: Type.Optional(
      Type.Array(CommandRuleSchema, {
        description: "Rules that allow a simple command; when non-empty, every unmatched command is denied.",
      }),
    ),
    deny: Type.Optional(
      Type.Array(CommandRuleSchema, {
        description: "Rules that deny a simple command; deny wins over allow.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** `[options.shell]` of a deployment. Every field is optional; absent fields take the documented default. */
export const ShellOptionsSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: "Whether shell.run runs at all. Default true." })),
    shell: Type.Optional(
      Type.Union([Type.Literal("sh"), Type.Literal("bash")], {
        description: "Shell catalog ID the tool pins: `sh` (/bin/sh, the default) or `bash`.",
      }),
    ),
    deadline_ms: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "Largest timeout_ms a call may ask for. Default 900000 (15 min).",
      }),
    ),
    default_timeout_ms: Type.Optional(
      Type.Integer({ minimum: 1, description: "Timeout of a call that names none. Default 60000 (60 s)." }),
    ),
    compound: Type.Optional(
      Type.Union([Type.Literal("allow"), Type.Literal("deny")], {
        description: "`deny` refuses lists and pipelines (`;`, `&&`, `||`, `|`, line breaks). Default allow.",
      }),
    ),
    max_command_length: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: `Longer command lines are unproven. Default ${DEFAULT_MAX_COMMAND_LENGTH}.`,
      }),
    ),
    truncation: Type.Optional(
      Type.Object(
        {
          max_lines: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: "Lines of each stream the model receives (the last ones). Default 200.",
            }),
          ),
          max_chars: Type.Optional(
            Type.Integer({
              minimum: 64,
              description: "Characters of each stream the model receives. Default 16000.",
            }),
          ),
        },
        {
          additionalProperties: false,
          description: "How stdout and stderr are cut before the model reads them.",
        },
      ),
    ),
    commands: Type.Optional(ShellCommandsSchema),
    kill_grace_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "Time between SIGTERM and SIGKILL during cleanup. Default 2000.",
      }),
    ),
    cleanup_ms: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "Whole allowance for ending processes and draining output after a run. Default 5000.",
      }),
    ),
  },
  { additionalProperties: false },
);

export type ShellOptions = Static<typeof ShellOptionsSchema>;
export type ShellCommands = Static<typeof ShellCommandsSchema>;

/** Options with every default applied. */
export interface ResolvedShellOptions {
  readonly enabled: boolean;
  readonly shell: "sh" | "bash";
  readonly deadlineMs: number;
  readonly defaultTimeoutMs: number;
  readonly compound: "allow" | "deny";
  readonly maxCommandLength: number;
  readonly maxLines: number;
  readonly maxChars: number;
  readonly killGraceMs: number;
  readonly cleanupMs: number;
}

export const DEFAULT_SHELL_OPTIONS: ResolvedShellOptions = Object.freeze({
  enabled: true,
  shell: "sh",
  deadlineMs: 15 * 60_000,
  defaultTimeoutMs: 60_000,
  compound: "allow",
  maxCommandLength: DEFAULT_MAX_COMMAND_LENGTH,
  maxLines: 200,
  maxChars: 16_000,
  killGraceMs: 2_000,
  cleanupMs: 5_000,
});

const validator = Compile(ShellOptionsSchema);

/**
 * Validates `[options.shell]` and applies defaults. Throws {@link PabloError} `INVALID_OPTIONS` for
 * a value the schema refuses or a default timeout above the deadline: a deployment error is a
 * host fault, not something a model can act on.
 */
export function resolveShellOptions(options: ShellOptions = {}): ResolvedShellOptions {
  if (!validator.Check(options)) {
    const first = [...validator.Errors(options)][0];
    throw new PabloError(
      "INVALID_OPTIONS",
      `options.shell${first?.instancePath ?? ""}: ${first?.message ?? "is invalid"}`,
    );
  }
  const d = DEFAULT_SHELL_OPTIONS;
  const resolved: ResolvedShellOptions = {
    enabled: options.enabled ?? d.enabled,
    shell: options.shell ?? d.shell,
    deadlineMs: options.deadline_ms ?? d.deadlineMs,
    defaultTimeoutMs:
      options.default_timeout_ms ?? Math.min(d.defaultTimeoutMs, options.deadline_ms ?? d.deadlineMs),
    compound: options.compound ?? d.compound,
    maxCommandLength: options.max_command_length ?? d.maxCommandLength,
    maxLines: options.truncation?.max_lines ?? d.maxLines,
    maxChars: options.truncation?.max_chars ?? d.maxChars,
    killGraceMs: options.kill_grace_ms ?? d.killGraceMs,
    cleanupMs: options.cleanup_ms ?? d.cleanupMs,
  };
  if (resolved.defaultTimeoutMs > resolved.deadlineMs) {
    throw new PabloError(
      "INVALID_OPTIONS",
      `options.shell.default_timeout_ms (${resolved.defaultTimeoutMs}) exceeds deadline_ms (${resolved.deadlineMs})`,
    );
  }
  return resolved;
}
