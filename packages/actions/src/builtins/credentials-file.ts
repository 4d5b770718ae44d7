import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/** Keys a credentials file may set. */
const KEYS = new Set(["user", "username", "password", "host", "port", "socket", "database"]);

export type CredentialsRead =
  | { readonly ok: true; readonly values: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly problem: string };

/**
 * Reads a host credentials file of `key = value` lines (`#` comments). It must be a regular file
 * (no link is followed), owned by the user the host runs as, and of mode 0600: anything more open
 * means someone else could have written or read it. The values never come from a call.
 */
export function readCredentialsFile(path: string): CredentialsRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, problem: `cannot open ${path}: ${(error as NodeJS.ErrnoException).code ?? "error"}` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, problem: `${path} is not a regular file` };
    if ((stat.mode & 0o777) !== 0o600)
      return { ok: false, problem: `${path} must have mode 0600 (has ${(stat.mode & 0o777).toString(8)})` };
    if (stat.uid !== process.getuid?.())
      return { ok: false, problem: `${path} must be owned by the host user` };
    if (stat.size > 64 * 1024) return { ok: false, problem: `${path} is too large` };
    const values: Record<string, string> = {};
    for (const line of readFileSync(fd, "utf8").split("\n")) {
      const trimmed = line.trim();
      if (trimmed === "" || trimmed.startsWith("#")) continue;
      const eq = trimmed.indexOf("=");
      const key = trimmed.slice(0, eq).trim();
      if (eq < 0 || !KEYS.has(key))
        return { ok: false, problem: `${path}: unknown line (expected key = value with a known key)` };
      values[key] = trimmed.slice(eq + 1).trim();
    }
    return { ok: true, values };
  } finally {
    closeSync(fd);
  }
}
