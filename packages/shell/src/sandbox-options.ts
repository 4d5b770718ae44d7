import { PabloError } from "@pablo/kernel";
import Type, { type Static } from "typebox";
import { Check, Errors } from "typebox/value";
import { ShellOptionsErrorCode } from "./errors.js";

/** System directories a bubblewrap sandbox shows read-only unless the deployment names its own. */
export const DEFAULT_SYSTEM_PATHS: readonly string[] = Object.freeze([
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
]);

/** Where bubblewrap is looked for when `bwrap_path` is absent; never through PATH. */
export const BWRAP_PATHS: readonly string[] = Object.freeze(["/usr/bin/bwrap", "/bin/bwrap"]);

/** `[options.sandbox.bubblewrap]`: how shell.run runs under bubblewrap. */
export const BubblewrapOptionsSchema = Type.Object(
  {
    bwrap_path: Type.Optional(
      Type.String({
        minLength: 1,
        description: `Absolute path of the bwrap executable. Default: the first of ${BWRAP_PATHS.join(", ")} that exists; a missing one is SANDBOX_UNAVAILABLE, never a fallback.`,
      }),
    ),
    net: Type.Optional(
      Type.Boolean({
        description:
          "Grant the sandbox the host's network. Default false: the command runs in an empty network namespace (--unshare-net), so even loopback servers of the host are unreachable.",
      }),
    ),
    system_paths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, description: "An absolute directory shown read-only." }), {
        description: `Directories bound read-only at the same path (missing ones are skipped). Default ${DEFAULT_SYSTEM_PATHS.join(", ")}. The home directory is never among them unless named here.`,
      }),
    ),
  },
  { additionalProperties: false, description: "Options of the bubblewrap sandbox." },
);

/** `[options.sandbox]` of a deployment (seed 003's sandboxes). */
export const SandboxOptionsSchema = Type.Object(
  {
    kind: Type.Optional(
      Type.Union([Type.Literal("local"), Type.Literal("bubblewrap"), Type.Literal("virtual")], {
        description:
          "`local` (default): commands run on the host, each call in its own PID namespace where the host allows one. `bubblewrap`: shell.run runs under bubblewrap beneath the static command policy. `virtual`: the fs tools run over an in-memory filesystem and shell.run is not attached at all.",
      }),
    ),
    pid_namespace: Type.Optional(
      Type.Boolean({
        description:
          "With `local`: start every command in a new PID namespace (util-linux unshare) when the host allows it, so no descendant outlives the call. Default true; false keeps only the process-group and marker cleanup.",
      }),
    ),
    bubblewrap: Type.Optional(BubblewrapOptionsSchema),
  },
  { additionalProperties: false },
);

export type SandboxOptions = Static<typeof SandboxOptionsSchema>;
export type BubblewrapOptions = Static<typeof BubblewrapOptionsSchema>;
export type SandboxKind = "local" | "bubblewrap" | "virtual";

/** `[options.sandbox]` with every default applied. */
export interface ResolvedSandboxOptions {
  readonly kind: SandboxKind;
  readonly pidNamespace: boolean;
  readonly bwrapPath?: string;
  readonly net: boolean;
  readonly systemPaths: readonly string[];
}

/** The capabilities of seed 003 a sandbox supports; a tool whose capability is missing is not attached. */
export type SandboxCapability = "read" | "write" | "glob" | "shell";

/**
 * Validates `[options.sandbox]` and applies defaults. Throws {@link PabloError} `INVALID_OPTIONS`
 * for a value the schema refuses. Whether bubblewrap exists is checked when the tool is made.
 */
export function resolveSandboxOptions(options: SandboxOptions = {}): ResolvedSandboxOptions {
  // Interpreted, not compiled: checked once per task, and compiling costs more than the check.
  if (!Check(SandboxOptionsSchema, options)) {
    const first = [...Errors(SandboxOptionsSchema, options)][0];
    throw new PabloError(
      ShellOptionsErrorCode.INVALID_OPTIONS,
      `options.sandbox${first?.instancePath ?? ""}: ${first?.message ?? "is invalid"}`,
    );
  }
  const bubblewrap = options.bubblewrap ?? {};
  for (const path of [
    ...(bubblewrap.system_paths ?? []),
    ...(bubblewrap.bwrap_path ? [bubblewrap.bwrap_path] : []),
  ]) {
    if (!path.startsWith("/")) {
      throw new PabloError(
        ShellOptionsErrorCode.INVALID_OPTIONS,
        `options.sandbox.bubblewrap: ${JSON.stringify(path)} is not an absolute path`,
      );
    }
  }
  return {
    kind: options.kind ?? "local",
    pidNamespace: options.pid_namespace ?? true,
    ...(bubblewrap.bwrap_path !== undefined ? { bwrapPath: bubblewrap.bwrap_path } : {}),
    net: bubblewrap.net ?? false,
    systemPaths: bubblewrap.system_paths ?? DEFAULT_SYSTEM_PATHS,
  };
}

/** Seed 003: local and container sandboxes support all four capabilities; virtual all but shell. */
export function sandboxCapabilities(kind: SandboxKind): readonly SandboxCapability[] {
  return kind === "virtual" ? ["read", "write", "glob"] : ["read", "write", "glob", "shell"];
}
