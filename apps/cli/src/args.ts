import { parseArgs } from "node:util";
import type { OperatingMode, PermissionMode } from "@pablo/kernel";

/** Options every command takes (DESIGN.md, the CLI contract). */
export interface GlobalOptions {
  readonly config: string | undefined;
  readonly binds: readonly string[];
  readonly policy: string | undefined;
  readonly workspace: string | undefined;
  readonly permission: PermissionMode | undefined;
  readonly mode: OperatingMode | undefined;
  readonly allowWrite: boolean;
  readonly noShell: boolean;
  readonly noFilesystem: boolean;
  readonly json: boolean;
}

/** A usage error: the CLI prints it with the command's usage and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

type OptionSpec = { type: "string" | "boolean"; multiple?: boolean; short?: string };

const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  config: { type: "string" },
  bind: { type: "string", multiple: true },
  policy: { type: "string" },
  workspace: { type: "string" },
  permission: { type: "string" },
  mode: { type: "string" },
  "allow-write": { type: "boolean" },
  "no-shell": { type: "boolean" },
  "no-filesystem": { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

export interface ParsedCommand {
  readonly global: GlobalOptions;
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  readonly positionals: readonly string[];
  readonly help: boolean;
}

/** Parses a command's arguments: the global options plus the command's own. Unknown options are usage errors. */
export function parseCommand(args: readonly string[], own: Record<string, OptionSpec> = {}): ParsedCommand {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...GLOBAL_OPTIONS, ...own },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const permission = v["permission"] as string | undefined;
  if (permission !== undefined && !["ask", "accept-edits", "auto", "read-only"].includes(permission)) {
    throw new UsageError(
      `--permission must be ask, accept-edits, auto or read-only, not ${JSON.stringify(permission)}`,
    );
  }
  const mode = v["mode"] as string | undefined;
  if (mode !== undefined && !["agent", "plan", "goal"].includes(mode)) {
    throw new UsageError(`--mode must be agent, plan or goal, not ${JSON.stringify(mode)}`);
  }
  return {
    global: {
      config: v["config"] as string | undefined,
      binds: (v["bind"] as string[] | undefined) ?? [],
      policy: v["policy"] as string | undefined,
      workspace: v["workspace"] as string | undefined,
      permission: permission as PermissionMode | undefined,
      mode: mode as OperatingMode | undefined,
      allowWrite: v["allow-write"] === true,
      noShell: v["no-shell"] === true,
      noFilesystem: v["no-filesystem"] === true,
      json: v["json"] === true,
    },
    values: v,
    positionals: parsed.positionals,
    help: v["help"] === true,
  };
}
