import { realpathSync } from "node:fs";
import { isExecutableFile } from "./executable-file.js";
import { PATH_BACKED_BUILTINS, SHELL_BUILTINS } from "./shell-words.js";

/** The executable a command word names, or the reason it cannot be proven. */
export type ExecutableResolution =
  | { readonly ok: true; readonly executable: string }
  | { readonly ok: false; readonly construct: string };

/**
 * Resolves a command word the way the shell will: a word with a slash names a file relative to
 * `cwd`; a builtin runs inside the shell; anything else is the first executable regular file on the
 * search path. The result is the canonical directory joined with the file name: directory links
 * (`/bin` to `/usr/bin`) are resolved, a link at the leaf is not, so a rule names the link it
 * allows (`/usr/bin/python3`, not the interpreter it points at).
 */
export function resolveCommandWord(
  word: string,
  cwd: string,
  searchPath: readonly string[],
): ExecutableResolution {
  if (word === "") return { ok: false, construct: "empty command word" };
  if (word.includes("/")) return resolvePathWord(word, cwd);
  if (SHELL_BUILTINS.has(word)) return { ok: false, construct: `shell builtin ${word}` };
  for (const directory of searchPath) {
    const candidate = `${directory}/${word}`;
    if (isExecutableFile(candidate)) {
      const canonical = canonicalDirectory(directory);
      if (canonical) return { ok: true, executable: joinLeaf(canonical, word) };
    }
  }
  if (PATH_BACKED_BUILTINS.has(word)) return { ok: false, construct: `shell builtin ${word}` };
  return { ok: false, construct: `command not found: ${clip(word)}` };
}

function resolvePathWord(word: string, cwd: string): ExecutableResolution {
  const absolute = word.startsWith("/") ? word : `${cwd}/${word}`;
  const cut = absolute.lastIndexOf("/");
  const leaf = absolute.slice(cut + 1);
  if (leaf === "" || leaf === "." || leaf === "..") {
    return { ok: false, construct: `not an executable file: ${clip(word)}` };
  }
  const directory = canonicalDirectory(cut === 0 ? "/" : absolute.slice(0, cut));
  if (!directory) return { ok: false, construct: `executable not found: ${clip(word)}` };
  return { ok: true, executable: joinLeaf(directory, leaf) };
}

function canonicalDirectory(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function joinLeaf(directory: string, leaf: string): string {
  return directory === "/" ? `/${leaf}` : `${directory}/${leaf}`;
}

function clip(word: string): string {
  return word.length > 64 ? `${word.slice(0, 61)}...` : word;
}
