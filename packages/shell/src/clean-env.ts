/** The fixed search path every command runs with, and that command words are resolved against. */
export const CLEAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The variable carrying a run's marker; descendants that keep their environment are found by it. */
export const RUN_MARKER_VARIABLE = "PABLO_SHELL_RUN";

/** Names a call may add: `PABLO_TASK_` and then letters, digits or underscores. */
export const TASK_ENV_NAME = /^PABLO_TASK_[A-Za-z0-9_]*$/;

/**
 * Git reads configuration that names programs to run, from the repository's own `.git/config`,
 * even for `git status`. Command-scope overrides (`GIT_CONFIG_COUNT`) outrank every file, so these
 * turn off or reset the ones an environment can reach. Attribute-driven drivers (textconv, external
 * diff drivers, clean/smudge filters, merge drivers) and `diff.external` have no environment
 * switch; see the README.
 */
export const GIT_HAZARD_OVERRIDES: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.pager", "cat"],
  ["core.hooksPath", "/dev/null"],
  ["core.askPass", ""],
  ["core.sshCommand", "ssh"],
  ["credential.helper", ""],
  ["gpg.program", "gpg"],
  ["gpg.ssh.program", "ssh-keygen"],
  ["gpg.x509.program", "gpgsm"],
  ["protocol.ext.allow", "never"],
  ["sequence.editor", "true"],
  ["core.editor", "true"],
];

export interface EnvironmentRequest {
  /** The per-run marker value. */
  readonly marker: string;
  /** PATH instead of {@link CLEAN_PATH}: the login shell's, when the deployment probes it. */
  readonly path?: string;
  /** Exported as PABLO_SCRATCH_DIR when the host has a scratch root. */
  readonly scratchDir?: string;
  /** Validated `PABLO_TASK_*` additions from the call. */
  readonly additions?: Readonly<Record<string, string>>;
}

/**
 * A small clean environment: the fixed PATH (or the probed login PATH), a UTF-8 locale, a dumb terminal, the git overrides and
 * the run marker. Nothing is inherited from the host, so no credential, HOME, shell start-up file
 * (ENV, BASH_ENV), proxy setting or trace context reaches the command.
 */
export function cleanEnvironment(request: EnvironmentRequest): Record<string, string> {
  const env: Record<string, string> = {
    PATH: request.path ?? CLEAN_PATH,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TERM: "dumb",
    PAGER: "cat",
    GIT_PAGER: "cat",
    GIT_EDITOR: "true",
    GIT_SEQUENCE_EDITOR: "true",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_COUNT: String(GIT_HAZARD_OVERRIDES.length),
  };
  GIT_HAZARD_OVERRIDES.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  if (request.scratchDir) env["PABLO_SCRATCH_DIR"] = request.scratchDir;
  for (const [name, value] of Object.entries(request.additions ?? {})) env[name] = value;
  // Last, so that nothing can replace it.
  env[RUN_MARKER_VARIABLE] = request.marker;
  return env;
}

/** The first `env` entry a call may not add, or undefined when all are acceptable. */
export function invalidAddition(additions: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(additions)) {
    if (!TASK_ENV_NAME.test(name)) return `${name}: only names beginning with PABLO_TASK_ may be added`;
    if (value.includes("\0")) return `${name}: a value may not contain NUL`;
  }
  return undefined;
}
