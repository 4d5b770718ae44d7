/**
 * The dimensions authority is decided over. Each access a call declares names one dimension.
 * - `tool`: the tool's native name.
 * - `effect`: each effect the tool declares (`process`, `fs.write`, ...).
 * - `fs.read` / `fs.write`: an absolute canonical path; rules match whole path components.
 * - `executable` / `mcp.launcher`: an absolute executable path, matched exactly.
 * - `command`: one simple command of a shell line, or a construct that could not be proven.
 * - `net`: a URL, compared on its parsed form against URL-prefix rules.
 * - `mcp.server`, `mcp.tool`, `credential`, `skill`, `child`: names, matched exactly or by `*`.
 */
export type Dimension =
  | "tool"
  | "effect"
  | "fs.read"
  | "fs.write"
  | "executable"
  | "mcp.launcher"
  | "command"
  | "net"
  | "mcp.server"
  | "mcp.tool"
  | "credential"
  | "skill"
  | "child";

export const DIMENSIONS: readonly Dimension[] = [
  "tool",
  "effect",
  "fs.read",
  "fs.write",
  "executable",
  "mcp.launcher",
  "command",
  "net",
  "mcp.server",
  "mcp.tool",
  "credential",
  "skill",
  "child",
];

export type NameDimension = "tool" | "effect" | "mcp.server" | "mcp.tool" | "credential" | "skill" | "child";
export type PathDimension = "fs.read" | "fs.write" | "executable" | "mcp.launcher";

/** Where a filesystem access lands, which decides prompts (scratch is prompt-free, external asks). */
export type RootKind = "workspace" | "scratch" | "external";

export type Access =
  | { readonly dimension: NameDimension; readonly value: string }
  | { readonly dimension: PathDimension; readonly path: string; readonly root?: RootKind }
  | { readonly dimension: "command"; readonly executable: string; readonly argv: readonly string[] }
  | { readonly dimension: "command"; readonly unproven: string }
  | { readonly dimension: "net"; readonly url: string };

/** A short human description of an access, for reasons and explanations. Never includes content. */
export function describeAccess(access: Access): string {
  switch (access.dimension) {
    case "fs.read":
    case "fs.write":
    case "executable":
    case "mcp.launcher":
      return `${access.dimension} ${access.path}`;
    case "command":
      return "unproven" in access
        ? `command with ${access.unproven}`
        : `command ${[access.executable, ...access.argv].join(" ")}`;
    case "net":
      return `net ${access.url}`;
    default:
      return `${access.dimension} ${access.value}`;
  }
}
