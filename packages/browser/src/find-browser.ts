import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, normalize } from "node:path";

/** Where Debian, Ubuntu and Google's packages install a browser. PATH is never consulted. */
export const DEFAULT_BROWSER_CANDIDATES: readonly string[] = Object.freeze([
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/opt/google/chrome/chrome",
]);

export type BrowserDiscovery =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: string };

/**
 * The first candidate that is an absolute path to an executable regular file. A relative or
 * non-normalized candidate is skipped, never resolved against PATH or the working directory, so
 * what runs is exactly what the deployment named. The reason lists every candidate and why it
 * failed, for `pablo tools --explain`.
 */
export function findBrowser(candidates: readonly string[] = DEFAULT_BROWSER_CANDIDATES): BrowserDiscovery {
  const rejected: string[] = [];
  for (const candidate of candidates) {
    const problem = problemWith(candidate);
    if (problem === undefined) return { ok: true, path: candidate };
    rejected.push(`${candidate}: ${problem}`);
  }
  if (rejected.length === 0) return { ok: false, reason: "no browser path was configured or tried" };
  return { ok: false, reason: `no Chromium or Chrome executable found (${rejected.join("; ")})` };
}

/** The candidates for a configured path: it first, then the well-known locations. */
export function browserCandidates(configured: string | undefined): readonly string[] {
  return configured === undefined ? DEFAULT_BROWSER_CANDIDATES : [configured, ...DEFAULT_BROWSER_CANDIDATES];
}

function problemWith(candidate: string): string | undefined {
  if (!isAbsolute(candidate) || normalize(candidate) !== candidate) {
    return "not a normalized absolute path";
  }
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(candidate);
  } catch (error) {
    return (error as { code?: string }).code === "ENOENT" ? "does not exist" : String(error);
  }
  if (!stats.isFile()) return "not a regular file";
  try {
    accessSync(candidate, constants.X_OK);
  } catch {
    return "not executable";
  }
  return undefined;
}
