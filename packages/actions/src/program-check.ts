import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { CLEAN_PATH } from "@pablo/shell";
import { parseWrapper, WRAPPERS, type WrapperParse } from "./wrapper-args.js";

/**
 * Programs that run arbitrary input as code. An action whose program (or wrapped program) is one
 * of them is refused unless it sets `allow_interpreter: true`.
 */
const INTERPRETER =
  /^(?:sh|bash|dash|ash|zsh|ksh|mksh|csh|tcsh|fish|busybox|python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|irb|node|nodejs|deno|bun|php[0-9.]*|lua[0-9.]*|luajit|tclsh[0-9.]*|wish[0-9.]*|expect|awk|gawk|mawk|nawk|pwsh|osascript|Rscript|julia|java|jshell|gdb)$/;

/**
 * Programs that start another program this check does not parse: treated like interpreters,
 * because accepting them would let any target through (stricter than the seed's list of checked
 * wrappers, which are parsed instead).
 */
const UNCHECKED_LAUNCHERS = new Set([
  "sudo",
  "su",
  "doas",
  "runuser",
  "setsid",
  "setpriv",
  "unshare",
  "flock",
  "strace",
  "ltrace",
  "watch",
  "script",
  "time",
  "nohup",
  "chrt",
  "taskset",
  "systemd-run",
  "bwrap",
  "firejail",
  "ssh",
  "sg",
  "newgrp",
]);

export type ProgramCheck =
  | { readonly ok: true; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Checks a resolved argument array before it runs: the program must not be an interpreter, an
 * unparsed launcher or a file that is not an ELF executable (a `#!` script, or text that
 * `execvp` would hand to `/bin/sh`), unless `allowInterpreter`; a checked wrapper (env, timeout,
 * nice, ionice, stdbuf, xargs, nsenter, chroot) has its target checked the same way, with the
 * limits the README documents: a target is checked only for the ELF magic, and a target inside a
 * namespace the host cannot inspect only by name.
 */
export function checkProgram(
  argv: readonly string[],
  allowInterpreter: boolean,
  fromParams: ReadonlySet<number> = new Set(),
): ProgramCheck {
  const warnings: string[] = [];
  const program = argv[0];
  if (program === undefined || !isAbsolute(program) || fromParams.has(0)) {
    return { ok: false, reason: "the program must be a literal absolute path" };
  }
  const problem = nameProblem(program) ?? fileProblem(program, "program");
  if (problem) {
    if (!allowInterpreter) return { ok: false, reason: problem };
    warnings.push(`allowed by allow_interpreter: ${problem}`);
  }
  return checkWrapped(argv, 0, { allow: allowInterpreter, fromParams, warnings }, 0);
}

interface WrapContext {
  readonly allow: boolean;
  readonly fromParams: ReadonlySet<number>;
  readonly warnings: string[];
}

/** Checks the wrapper at `argv[0]` (position `offset` of the whole array) and its target. */
function checkWrapped(
  argv: readonly string[],
  offset: number,
  context: WrapContext,
  depth: number,
): ProgramCheck {
  const { allow, warnings } = context;
  const name = programName(argv[0] ?? "");
  if (!WRAPPERS.has(name)) return { ok: true, warnings };
  if (depth >= 8) return { ok: false, reason: "wrappers nested too deeply" };
  const parsed: WrapperParse = parseWrapper(name, argv.slice(1));
  if (parsed.kind === "refused") return { ok: false, reason: `${name}: ${parsed.reason}` };
  if (parsed.kind === "no-target") return { ok: true, warnings };
  const [word, ...rest] = parsed.command;
  const at = offset + argv.length - parsed.command.length;
  if (word === undefined || word === "") return { ok: false, reason: `${name}: empty command` };
  // A parameter may never choose the program, not even with allow_interpreter.
  if (context.fromParams.has(at))
    return { ok: false, reason: `${name}: the wrapped command comes from a parameter` };
  let problem = nameProblem(word);
  let resolved: string | undefined;
  if (!problem && parsed.inspect !== "name-only") {
    resolved = resolveTarget(word, parsed.inspect === "host" ? "/" : parsed.inspect.root);
    problem = resolved ? fileProblem(resolved, `${name} target`, true) : `${name} target ${word} not found`;
  }
  if (problem) {
    if (!allow) return { ok: false, reason: problem };
    warnings.push(`allowed by allow_interpreter: ${problem}`);
  }
  return checkWrapped([resolved ?? word, ...rest], at, context, depth + 1);
}

/** The program's name, and its link target's name, checked against interpreters and launchers. */
function nameProblem(word: string): string | undefined {
  const names = [programName(word)];
  if (isAbsolute(word)) {
    try {
      names.push(programName(realpathSync(word)));
    } catch {
      // A missing file is reported by the file check or the executable resolution.
    }
  }
  for (const name of names) {
    if (INTERPRETER.test(name)) return `${word} is an interpreter (${name})`;
    if (UNCHECKED_LAUNCHERS.has(name)) return `${word} starts other programs unchecked (${name})`;
  }
  return undefined;
}

/** Why a file may not run as a plain program: a `#!` script or anything without the ELF magic. */
function fileProblem(path: string, what: string, wrapped = false): string | undefined {
  const head = readHead(path);
  if (head === undefined) return wrapped ? `${what} ${path} cannot be read` : undefined;
  if (head[0] === 0x23 && head[1] === 0x21) return `${what} ${path} is a #! script`;
  if (head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) return undefined;
  return `${what} ${path} is not an ELF executable`;
}

/** The first four bytes of a regular file, or undefined when it cannot be read. */
function readHead(path: string): Buffer | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    const fd = openSync(path, "r");
    try {
      const head = Buffer.alloc(4);
      readSync(fd, head, 0, 4, 0);
      return head;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Where a wrapper's target word lands: a path under `root`, or a search of the clean PATH there. */
function resolveTarget(word: string, root: string): string | undefined {
  if (word.includes("/")) return isAbsolute(word) ? join(root, word) : undefined;
  for (const dir of CLEAN_PATH.split(":")) {
    const candidate = join(root, dir, word);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

function programName(path: string): string {
  return basename(path);
}
