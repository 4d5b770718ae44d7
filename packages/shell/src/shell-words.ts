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
 * shell may run its builtin instead, with the same effect.
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
