import { CommandRuleSchema, PabloError } from "@pablo/kernel";
import Type, { type Static } from "typebox";
import { Check, Errors } from "typebox/value";
import { DEFAULT_MAX_COMMAND_LENGTH } from "./command-parser.js";
import { ShellOptionsErrorCode } from "./errors.js";
import { isExecutableFile } from "./executable-file.js";
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from "./shell-schema.js";

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
      Type.String({
        minLength: 1,
        description:
          "Shell catalog ID the tool pins: `sh` (/bin/sh -c, the default) or `bash`. An ID this platform does not support (`windows-powershell`, `cmd`, `git-bash` on Linux or macOS) is refused with COMMAND_SHELL_INVALID.",
      }),
    ),
    login: Type.Optional(
      Type.Boolean({
        description:
          'With `shell = "bash"`, run commands as a login shell (`bash -lc`), so the profile\'s PATH applies. Default false (`bash --noprofile --norc -c`).',
      }),
    ),
    bash_path: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Absolute path of the bash executable to use, instead of discovering it in /bin/bash, /usr/bin/bash, /usr/local/bin/bash, the Homebrew prefixes and then PATH.",
      }),
    ),
    redact: Type.Optional(
      Type.Array(Type.Literal("secrets"), {
        uniqueItems: true,
        description:
          'Redaction of command output before the model, the host or the audit sees it: ["secrets"] replaces cloud keys, provider API keys, bearer tokens, private key blocks, JWTs and passwords in connection strings with [REDACTED] (the actions package\'s redactor). Default none.',
      }),
    ),
    login_path_probe: Type.Optional(
      Type.Boolean({
        description:
          "Ask the user's login shell ($SHELL, else /bin/zsh, /bin/bash, /bin/sh) for its PATH once per process (5 s at most) and give commands that PATH. Any failure keeps the fixed PATH. Default false.",
      }),
    ),
    deadline_ms: Type.Optional(
      Type.Integer({
        minimum: MIN_TIMEOUT_MS,
        description: `The host's shell deadline, the outer cap on timeout_ms: a call may ask for at most the smaller of ${MAX_TIMEOUT_MS} ms and this. Default 900000 (15 min).`,
      }),
    ),
    default_timeout_ms: Type.Optional(
      Type.Integer({
        minimum: MIN_TIMEOUT_MS,
        maximum: MAX_TIMEOUT_MS,
        description: `Timeout of a call that names none, ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS} ms and not above deadline_ms. Default ${DEFAULT_TIMEOUT_MS} (60 s).`,
      }),
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
/** A shell catalog ID this platform runs. */
export type ShellId = "sh" | "bash";
export type ShellCommands = Static<typeof ShellCommandsSchema>;

/** Options with every default applied. */
export interface ResolvedShellOptions {
  readonly enabled: boolean;
  readonly shell: ShellId;
  /** Whether bash runs as a login shell (`-lc`). */
  readonly login: boolean;
  /** The deployment's bash executable; absent means discovery. */
  readonly bashPath?: string;
  readonly loginPathProbe: boolean;
  /** Redaction sets applied to stdout, stderr and streamed output. */
  readonly redact: readonly "secrets"[];
  readonly deadlineMs: number;
  /** The largest timeout_ms a call may ask for: the smaller of 300 s and the deadline. */
  readonly maxTimeoutMs: number;
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
  login: false,
  loginPathProbe: false,
  redact: [],
  deadlineMs: 15 * 60_000,
  maxTimeoutMs: MAX_TIMEOUT_MS,
  defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
  compound: "allow",
  maxCommandLength: DEFAULT_MAX_COMMAND_LENGTH,
  maxLines: 200,
  maxChars: 16_000,
  killGraceMs: 2_000,
  cleanupMs: 5_000,
});

/** The shell IDs of seed 001's catalog, and those this platform can run. */
const KNOWN_SHELLS = ["sh", "bash", "windows-powershell", "cmd", "git-bash"] as const;
const PLATFORM_SHELLS: readonly ShellId[] = ["sh", "bash"];

/**
 * Validates `[options.shell]` and applies defaults. Throws {@link PabloError}
 * `COMMAND_SHELL_INVALID` for a shell ID this platform does not support and `INVALID_OPTIONS` for
 * any other value the schema or the cross-field checks refuse: a deployment error is a host
 * fault, not something a model can act on.
 */
export function resolveShellOptions(options: ShellOptions = {}): ResolvedShellOptions {
  // Interpreted, not compiled: checked once per task, and compiling costs more than the check.
  if (!Check(ShellOptionsSchema, options)) {
    const first = [...Errors(ShellOptionsSchema, options)][0];
    throw invalid(`options.shell${first?.instancePath ?? ""}: ${first?.message ?? "is invalid"}`);
  }
  const d = DEFAULT_SHELL_OPTIONS;
  const shell = checkShellId(options.shell ?? d.shell);
  const deadlineMs = options.deadline_ms ?? d.deadlineMs;
  const maxTimeoutMs = Math.min(MAX_TIMEOUT_MS, deadlineMs);
  const resolved: ResolvedShellOptions = {
    enabled: options.enabled ?? d.enabled,
    shell,
    login: options.login ?? d.login,
    ...(options.bash_path !== undefined ? { bashPath: checkBashPath(options.bash_path) } : {}),
    loginPathProbe: options.login_path_probe ?? d.loginPathProbe,
    redact: options.redact ?? d.redact,
    deadlineMs,
    maxTimeoutMs,
    defaultTimeoutMs: options.default_timeout_ms ?? Math.min(d.defaultTimeoutMs, maxTimeoutMs),
    compound: options.compound ?? d.compound,
    maxCommandLength: options.max_command_length ?? d.maxCommandLength,
    maxLines: options.truncation?.max_lines ?? d.maxLines,
    maxChars: options.truncation?.max_chars ?? d.maxChars,
    killGraceMs: options.kill_grace_ms ?? d.killGraceMs,
    cleanupMs: options.cleanup_ms ?? d.cleanupMs,
  };
  if (resolved.defaultTimeoutMs > resolved.deadlineMs) {
    throw invalid(
      `options.shell.default_timeout_ms (${resolved.defaultTimeoutMs}) exceeds deadline_ms (${resolved.deadlineMs})`,
    );
  }
  if (resolved.login && shell !== "bash") {
    throw invalid('options.shell.login = true needs shell = "bash": /bin/sh is never run as a login shell');
  }
  return resolved;
}

function checkShellId(id: string): ShellId {
  if ((PLATFORM_SHELLS as readonly string[]).includes(id)) return id as ShellId;
  const known = (KNOWN_SHELLS as readonly string[]).includes(id);
  throw new PabloError(
    ShellOptionsErrorCode.COMMAND_SHELL_INVALID,
    `options.shell/shell: ${JSON.stringify(id)} is ${known ? "not available on" : "not a shell ID of"} this platform (${process.platform}); supported here: ${PLATFORM_SHELLS.join(", ")}`,
    { shell: id, supported: [...PLATFORM_SHELLS] },
  );
}

function checkBashPath(path: string): string {
  if (!path.startsWith("/")) {
    throw invalid(`options.shell.bash_path must be an absolute path, got ${JSON.stringify(path)}`);
  }
  if (!isExecutableFile(path)) {
    throw invalid(`options.shell.bash_path ${path} is not an executable regular file`);
  }
  return path;
}

function invalid(message: string): PabloError {
  return new PabloError(ShellOptionsErrorCode.INVALID_OPTIONS, message);
}
