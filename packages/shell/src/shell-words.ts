/**
 * Reserved words of POSIX sh and bash, recognised only when unquoted in command position, and
 * the construct each one opens.
 */
export const RESERVED_WORDS: ReadonlyMap<string, string> = new Map([
  ...[
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "do",
    "done",
    "case",
    "esac",
    "while",
    "until",
    "for",
    "in",
    "select",
  ].map((word): [string, string] => [word, "control flow"]),
  ["function", "function definition"],
  ["time", "control flow"],
  ["coproc", "control flow"],
  ["!", "negation !"],
  ["]]", "conditional expression [["],
]);

/**
 * Builtins of dash and bash that run inside the shell, whatever the PATH holds. They have no
 * executable a rule could name, and several (`exec`, `command`, `eval`, `.`, `source`, `builtin`)
 * run other commands, so none is ever unwrapped or allowed by a command rule.
 */
export const SHELL_BUILTINS: ReadonlySet<string> = new Set([
  ".",
  ":",
  "alias",
  "bg",
  "bind",
  "break",
  "builtin",
  "caller",
  "cd",
  "chdir",
  "command",
  "compgen",
  "complete",
  "compopt",
  "continue",
  "declare",
  "dirs",
  "disown",
  "enable",
  "eval",
  "exec",
  "exit",
  "export",
  "fc",
  "fg",
  "getopts",
  "hash",
  "help",
  "history",
  "jobs",
  "let",
  "local",
  "logout",
  "mapfile",
  "popd",
  "pushd",
  "read",
  "readarray",
  "readonly",
  "return",
  "set",
  "shift",
  "shopt",
  "source",
  "suspend",
  "times",
  "trap",
  "type",
  "typeset",
  "ulimit",
  "umask",
  "unalias",
  "unset",
  "wait",
]);

/**
 * Builtins that behave like the standard utility of the same name. They are matched against the
 * executable found on the clean PATH (a rule for `/usr/bin/echo` covers the `echo` builtin); the
 * shell may run its builtin instead, with the same effect, except where `builtinOnlyUse` says not.
 */
export const PATH_BACKED_BUILTINS: ReadonlySet<string> = new Set([
  "echo",
  "printf",
  "test",
  "[",
  "true",
  "false",
  "pwd",
  "kill",
]);

/**
 * What a PATH-backed builtin would do that its executable cannot, or undefined. bash's `printf`
 * takes options (only `-v VAR`, which assigns the output to a shell variable: `printf -v PATH
 * /evil; ls` runs `/evil/ls`), so a first argument that bash would read as an option is refused
 * under any shell; after `--`, or as a lone `-`, it is the format and prints.
 */
export function builtinOnlyUse(word: string, argv: readonly string[]): string | undefined {
  if (word !== "printf") return undefined;
  const first = argv[0];
  if (first === undefined || first === "--" || first === "-" || !first.startsWith("-")) return undefined;
  return `printf option ${first.slice(0, 2)} (bash's builtin sets a shell variable)`;
}
