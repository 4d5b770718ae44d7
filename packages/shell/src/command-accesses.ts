import type { Access } from "@pablo/kernel";
import type { ParsedCommandLine } from "./command-parser.js";
import { resolveCommandWord } from "./resolve-executable.js";

/**
 * The `command` accesses of a parsed line, for the kernel's command rules: one
 * `{ executable, argv }` per simple command, with the command word resolved to an absolute
 * executable, or `{ unproven }` naming what could not be proven. The unproven construct comes
 * first so that a denial names it.
 */
export function commandAccesses(
  parsed: ParsedCommandLine,
  cwd: string,
  searchPath: readonly string[],
): Access[] {
  const accesses: Access[] = [];
  if (parsed.unproven) accesses.push({ dimension: "command", unproven: parsed.unproven.construct });
  for (const command of parsed.commands) {
    const [word = "", ...argv] = command.words;
    const resolved = resolveCommandWord(word, cwd, searchPath);
    accesses.push(
      resolved.ok
        ? { dimension: "command", executable: resolved.executable, argv }
        : { dimension: "command", unproven: resolved.construct },
    );
  }
  return accesses;
}

/** Whether the line is a list or a pipeline (including a background list, which is never proven). */
export function isCompound(parsed: ParsedCommandLine): boolean {
  return parsed.commands.length > 1 || parsed.unproven?.construct === "background &";
}
