import type { Access } from "@pablo/kernel";
import type { ParsedCommandLine } from "./command-parser.js";
import { resolveCommandWord } from "./resolve-executable.js";
import { builtinOnlyUse } from "./shell-words.js";

/**
 * The `command` accesses of a parsed line, for the kernel's command rules: one
 * `{ executable, argv }` per simple command, with the command word resolved to an absolute
 * executable, or `{ unproven }` naming what could not be proven. The unproven construct comes
 * first so that a denial names it. A line with no command at all (empty, blanks, line breaks)
 * is the unproven `empty command line`: it would otherwise declare no command access, and a
 * layer whose non-empty allow list denies everything it does not match would never be asked.
 */
export function commandAccesses(
  parsed: ParsedCommandLine,
  cwd: string,
  searchPath: readonly string[],
): Access[] {
  const accesses: Access[] = [];
  if (parsed.unproven) accesses.push({ dimension: "command", unproven: parsed.unproven.construct });
  else if (parsed.commands.length === 0) accesses.push({ dimension: "command", unproven: EMPTY_LINE });
  for (const command of parsed.commands) {
    const [word = "", ...argv] = command.words;
    const resolved = resolveCommandWord(word, cwd, searchPath);
    const builtinUse = builtinOnlyUse(word, argv);
    accesses.push(
      builtinUse !== undefined
        ? { dimension: "command", unproven: builtinUse }
        : resolved.ok
          ? { dimension: "command", executable: resolved.executable, argv }
          : { dimension: "command", unproven: resolved.construct },
    );
  }
  return accesses;
}

/** The construct named for a line that holds no command. */
export const EMPTY_LINE = "empty command line";

/** Whether the line is a list or a pipeline (including a background list, which is never proven). */
export function isCompound(parsed: ParsedCommandLine): boolean {
  return parsed.commands.length > 1 || parsed.unproven?.construct === "background &";
}
