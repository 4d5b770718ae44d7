import { realpathSync } from "node:fs";

/** The wrappers whose targets are checked (seed 004); every other launcher is refused as unchecked. */
export const WRAPPERS: ReadonlySet<string> = new Set([
  "env",
  "timeout",
  "nice",
  "ionice",
  "stdbuf",
  "xargs",
  "nsenter",
  "chroot",
]);

/**
 * Where a wrapper's target can be inspected: on the host, under another root directory on the
 * host (chroot), or by name only (nsenter into a root or mount namespace the host cannot see).
 */
export type Inspect = "host" | "name-only" | { readonly root: string };

export type WrapperParse =
  | { readonly kind: "target"; readonly command: readonly string[]; readonly inspect: Inspect }
  | { readonly kind: "no-target" }
  | { readonly kind: "refused"; readonly reason: string };

interface OptionSpec {
  /** Short options that take an argument (attached or the next word). */
  readonly shortArg: string;
  /** Short options that take an optional argument, attached only. */
  readonly shortOptional?: string;
  readonly shortFlags: string;
  readonly longArg: readonly string[];
  readonly longOptional?: readonly string[];
  readonly longFlags: readonly string[];
  /** Positional words before the command (timeout's duration, chroot's new root). */
  readonly positional: number;
}

const SPECS: Record<string, OptionSpec> = {
  env: {
    shortArg: "uC",
    shortFlags: "i0v",
    longArg: ["unset", "chdir"],
    longFlags: ["ignore-environment", "null", "debug"],
    positional: 0,
  },
  timeout: {
    shortArg: "sk",
    shortFlags: "v",
    longArg: ["signal", "kill-after"],
    longFlags: ["foreground", "preserve-status", "verbose"],
    positional: 1,
  },
  nice: { shortArg: "n", shortFlags: "", longArg: ["adjustment"], longFlags: [], positional: 0 },
  ionice: {
    shortArg: "cnpPu",
    shortFlags: "t",
    longArg: ["class", "classdata", "pid", "pgid", "uid"],
    longFlags: ["ignore"],
    positional: 0,
  },
  stdbuf: {
    shortArg: "ioe",
    shortFlags: "",
    longArg: ["input", "output", "error"],
    longFlags: [],
    positional: 0,
  },
  xargs: {
    shortArg: "adEILnPs",
    shortOptional: "eil",
    shortFlags: "0rtpxo",
    longArg: ["arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"],
    longOptional: ["eof", "replace"],
    longFlags: ["null", "no-run-if-empty", "verbose", "interactive", "exit", "open-tty"],
    positional: 0,
  },
  nsenter: {
    shortArg: "tSG",
    shortOptional: "muinpUCTrw",
    shortFlags: "aFZ",
    longArg: ["target", "setuid", "setgid"],
    longOptional: ["mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "root", "wd"],
    longFlags: ["all", "no-fork", "preserve-credentials", "follow-context"],
    positional: 0,
  },
  chroot: {
    shortArg: "",
    shortFlags: "",
    longArg: ["userspec", "groups"],
    longFlags: ["skip-chdir"],
    positional: 1,
  },
};

interface Seen {
  /** Option letter or long name, with its value when it had one. */
  readonly options: { readonly name: string; readonly value: string | undefined }[];
  readonly positional: string[];
  readonly command: readonly string[];
}

/**
 * Parses a wrapper's arguments literally, getopt style, up to its command. Anything it cannot
 * evaluate literally is refused: an unknown option, `env -S` (which splits a string into new
 * arguments), a missing option argument.
 */
export function parseWrapper(name: string, args: readonly string[]): WrapperParse {
  const spec = SPECS[name];
  if (!spec) return { kind: "refused", reason: "not a checked wrapper" };
  const seen = scan(name, spec, args);
  if ("reason" in seen) return { kind: "refused", reason: seen.reason };
  if (seen.command.length === 0) {
    // chroot without a command runs an interactive shell; env, nice and stdbuf print or fail.
    if (name === "chroot") return { kind: "refused", reason: "chroot without a command starts a shell" };
    if (name === "xargs") return { kind: "target", command: ["echo"], inspect: "host" };
    return { kind: "no-target" };
  }
  if (name === "ionice" && seen.options.some((o) => ["p", "P", "u", "pid", "pgid", "uid"].includes(o.name))) {
    return { kind: "refused", reason: "ionice -p/-P/-u with a command is ambiguous" };
  }
  return { kind: "target", command: seen.command, inspect: inspectionOf(name, seen) };
}

function inspectionOf(name: string, seen: Seen): Inspect {
  if (name === "chroot") {
    const root = seen.positional[0] ?? "/";
    return isHostRoot(root) ? "host" : { root };
  }
  if (name !== "nsenter") return "host";
  let inspect: Inspect = "host";
  for (const { name: option, value } of seen.options) {
    if (option === "a" || option === "all" || option === "m" || option === "mount") return "name-only";
    if (option === "r" || option === "root") {
      if (value === undefined || !isHostRoot(value)) inspect = "name-only";
    }
  }
  return inspect;
}

function isHostRoot(dir: string): boolean {
  try {
    return realpathSync(dir) === "/";
  } catch {
    return false;
  }
}

function scan(name: string, spec: OptionSpec, args: readonly string[]): Seen | { reason: string } {
  const options: Seen["options"] = [];
  const positional: string[] = [];
  let i = 0;
  while (i < args.length) {
    const word = args[i] ?? "";
    if (word === "--") {
      i++;
      break;
    }
    if (name === "env" && (word === "-" || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word))) {
      i++;
      continue;
    }
    if (name === "nice" && /^-[0-9]+$/.test(word)) {
      i++;
      continue;
    }
    if (word.startsWith("--") && word.length > 2) {
      const step = longOption(spec, word, args[i + 1], options);
      if (typeof step === "string") return { reason: step };
      i += step;
      continue;
    }
    if (word.startsWith("-") && word.length > 1) {
      const step = shortOptions(spec, word, args[i + 1], options);
      if (typeof step === "string") return { reason: step };
      i += step;
      continue;
    }
    break;
  }
  while (positional.length < spec.positional && i < args.length) positional.push(args[i++] ?? "");
  if (positional.length < spec.positional)
    return { reason: "missing a positional argument before the command" };
  return { options, positional, command: args.slice(i) };
}

/** Words consumed by one long option, or why it is refused. */
function longOption(
  spec: OptionSpec,
  word: string,
  next: string | undefined,
  out: Seen["options"],
): number | string {
  const eq = word.indexOf("=");
  const name = word.slice(2, eq < 0 ? undefined : eq);
  const value = eq < 0 ? undefined : word.slice(eq + 1);
  if (spec.longFlags.includes(name) && value === undefined) {
    out.push({ name, value });
    return 1;
  }
  if (spec.longOptional?.includes(name)) {
    out.push({ name, value });
    return 1;
  }
  if (spec.longArg.includes(name)) {
    if (value !== undefined) {
      out.push({ name, value });
      return 1;
    }
    if (next === undefined) return `option --${name} needs a value`;
    out.push({ name, value: next });
    return 2;
  }
  return `option ${word} cannot be evaluated literally`;
}

/** Words consumed by a cluster of short options, or why it is refused. */
function shortOptions(
  spec: OptionSpec,
  word: string,
  next: string | undefined,
  out: Seen["options"],
): number | string {
  for (let j = 1; j < word.length; j++) {
    const letter = word[j] ?? "";
    const rest = word.slice(j + 1);
    if (spec.shortArg.includes(letter)) {
      if (rest !== "") {
        out.push({ name: letter, value: rest });
        return 1;
      }
      if (next === undefined) return `option -${letter} needs a value`;
      out.push({ name: letter, value: next });
      return 2;
    }
    if (spec.shortOptional?.includes(letter)) {
      out.push({ name: letter, value: rest === "" ? undefined : rest });
      return 1;
    }
    if (!spec.shortFlags.includes(letter)) return `option -${letter} cannot be evaluated literally`;
    out.push({ name: letter, value: undefined });
  }
  return 1;
}
