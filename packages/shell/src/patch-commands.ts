import type { ParsedCommandLine, SimpleCommand } from "./command-parser.js";

/** The patch commands of seed 001 §4d whose second failure for a path ends the turn. */
export type PatchTool = "apply_patch" | "git apply" | "patch";

/** A recognised patch command, as far as its words say where the patch comes from and goes. */
export interface PatchCommand {
  readonly tool: PatchTool;
  /** Directory the command changes to first (`git -C dir`, `patch -d dir`), relative to cwd. */
  readonly chdir: string;
  /** Directory prepended to the file names in the patch (`git apply --directory=dir`). */
  readonly prefix: string;
  /** Leading components stripped from the names in the patch (`-pN`); undefined when not given. */
  readonly strip: number | undefined;
  /** Files the command reads the patch from (`git apply a.diff`, `patch -i a.diff`, `patch < a.diff`). */
  readonly patchFiles: readonly string[];
  /** The file the command is told to patch (`patch file.txt fix.diff`). */
  readonly target: string | undefined;
  /** Patch text in the line itself: a here-document body, or apply_patch's argument. */
  readonly inline: string | undefined;
}

/**
 * The patch command whose exit status is the line's, when there is one: the last simple command
 * of the line (the one an unproven construct interrupted, when there is one), recognised from the
 * words the literal parser produced, never from a substring. A patch command earlier in a list
 * is not counted: the line's status may come from a later command.
 */
export function lastPatchCommand(text: string, parsed: ParsedCommandLine): PatchCommand | undefined {
  const last = parsed.unproven ? parsed.partial : parsed.commands.at(-1);
  if (!last) return undefined;
  return recognise(last, parsed.unproven ? text.slice(parsed.unproven.offset) : "");
}

function recognise(command: SimpleCommand, rest: string): PatchCommand | undefined {
  const [word = "", ...args] = command.words;
  const name = word.slice(word.lastIndexOf("/") + 1);
  const stdin = redirectedInput(rest);
  if (name === "apply_patch") {
    const inline = [...args, stdin.inline ?? ""].join("\n");
    return { ...EMPTY, tool: "apply_patch", patchFiles: stdin.file ? [stdin.file] : [], inline };
  }
  if (name === "patch") return patchCommand(args, stdin);
  if (name === "git") return gitApply(args, stdin);
  return undefined;
}

const EMPTY = {
  chdir: ".",
  prefix: "",
  strip: undefined,
  patchFiles: [],
  target: undefined,
  inline: undefined,
};

interface Stdin {
  readonly file?: string;
  readonly inline?: string;
}

/** `< file` or a here-document right where the parse stopped; anything else is not read. */
function redirectedInput(rest: string): Stdin {
  if (rest.startsWith("<<")) {
    const body = rest.indexOf("\n");
    return body < 0 ? {} : { inline: rest.slice(body + 1) };
  }
  const file = /^<\s*([A-Za-z0-9_@%+=:,./-]+)(?=$|[\s;&|)])/.exec(rest)?.[1];
  return file ? { file } : {};
}

const PATCH_VALUE_OPTIONS = new Set("BDFVYdgiopryz".split("").map((c) => `-${c}`));
const PATCH_LONG_VALUE_OPTIONS = new Set([
  "--basename-prefix",
  "--directory",
  "--fuzz",
  "--get",
  "--ifdef",
  "--input",
  "--output",
  "--prefix",
  "--quoting-style",
  "--reject-file",
  "--reject-format",
  "--strip",
  "--suffix",
  "--version-control",
]);

function patchCommand(args: readonly string[], stdin: Stdin): PatchCommand {
  const options = new Map<string, string>();
  const positional = splitOptions(
    args,
    (arg) => PATCH_VALUE_OPTIONS.has(arg) || PATCH_LONG_VALUE_OPTIONS.has(arg),
    options,
    "dipo",
  );
  const input = options.get("-i") ?? options.get("--input");
  const patchFile = input ?? positional[1] ?? stdin.file;
  return {
    ...EMPTY,
    tool: "patch",
    chdir: options.get("-d") ?? options.get("--directory") ?? ".",
    strip: stripLevel(options.get("-p") ?? options.get("--strip")),
    patchFiles: patchFile ? [patchFile] : [],
    target: positional[0],
    inline: patchFile ? undefined : stdin.inline,
  };
}

const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"]);
const GIT_APPLY_VALUE_OPTIONS = new Set([
  "-p",
  "-C",
  "--exclude",
  "--include",
  "--directory",
  "--whitespace",
  "--build-fake-ancestor",
]);

function gitApply(args: readonly string[], stdin: Stdin): PatchCommand | undefined {
  let chdir = ".";
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (!arg.startsWith("-")) break;
    if (GIT_VALUE_OPTIONS.has(arg)) {
      if (arg === "-C") chdir = joinRelative(chdir, args[i + 1] ?? ".");
      i++;
    }
  }
  if (args[i] !== "apply") return undefined;
  const options = new Map<string, string>();
  const positional = splitOptions(args.slice(i + 1), (arg) => GIT_APPLY_VALUE_OPTIONS.has(arg), options, "p");
  return {
    tool: "git apply",
    chdir,
    prefix: options.get("--directory") ?? "",
    strip: stripLevel(options.get("-p")),
    patchFiles: positional.length > 0 ? positional : stdin.file ? [stdin.file] : [],
    target: undefined,
    inline: positional.length > 0 || stdin.file ? undefined : stdin.inline,
  };
}

/**
 * Separates options from positional words. `takesValue` names the options whose value is the next
 * word; `--name=value` and, for the short options in `attached`, `-xVALUE` carry it inline.
 */
function splitOptions(
  args: readonly string[],
  takesValue: (arg: string) => boolean,
  options: Map<string, string>,
  attached: string,
): string[] {
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 0) options.set(arg.slice(0, eq), arg.slice(eq + 1));
    else if (takesValue(arg)) options.set(arg, args[++i] ?? "");
    else if (arg.length > 2 && !arg.startsWith("--") && attached.includes(arg[1] ?? "")) {
      options.set(arg.slice(0, 2), arg.slice(2));
    }
  }
  return positional;
}

function stripLevel(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** `base/path` for a relative `path`, or `path` itself when absolute. */
export function joinRelative(base: string, path: string): string {
  return path.startsWith("/") || base === "." ? path : `${base}/${path}`;
}

/**
 * The file names a patch text changes: `+++` names (`---` for a deletion) of unified diffs, and the
 * `*** Update/Add/Delete File:` and `*** Move to:` names of apply_patch's format. `/dev/null` is no
 * file; a timestamp after a tab and git's quotes are removed.
 */
export function patchedNames(patch: string): string[] {
  const names = new Set<string>();
  let minus: string | undefined;
  for (const line of patch.split(/\r?\n/)) {
    const envelope = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/.exec(line);
    if (envelope) {
      names.add((envelope[1] ?? envelope[2] ?? "").trim());
      continue;
    }
    if (line.startsWith("--- ")) minus = headerName(line.slice(4));
    else if (line.startsWith("+++ ")) {
      const plus = headerName(line.slice(4));
      const name = plus ?? minus;
      if (name) names.add(name);
      minus = undefined;
    }
  }
  names.delete("");
  return [...names];
}

function headerName(field: string): string | undefined {
  let name = field.split("\t")[0]?.trim() ?? "";
  if (name.length > 1 && name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1);
  return name === "" || name === "/dev/null" ? undefined : name;
}

/** Strips `strip` leading components, or, when not given, a leading git `a/` or `b/`. */
export function strippedName(name: string, strip: number | undefined): string {
  if (strip === undefined) return name.replace(/^[ab]\//, "");
  const parts = name.split("/").filter((p) => p !== "");
  return parts.length > strip ? parts.slice(strip).join("/") : name;
}
