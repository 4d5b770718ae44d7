import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Runs the pnpm that runs this test: its JavaScript entry through node (older pnpm) or its native
 * binary (pnpm 12). Under npm or npx, `npm_execpath` names npm, which cannot pack a workspace
 * package, so it falls back to pnpm on PATH. Returns stdout; a failure throws with pnpm's stderr.
 */
export function pnpm(args: readonly string[], cwd: string): string {
  const execpath = process.env["npm_execpath"] ?? "";
  const isPnpm = execpath.includes("pnpm");
  const viaNode = isPnpm && /\.[cm]?js$/.test(execpath);
  const command = viaNode ? process.execPath : isPnpm ? execpath : "pnpm";
  const prefix = viaNode ? [execpath] : [];
  return execFileSync(command, [...prefix, ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * Packs the workspace package in `dir` into the directory `out` as pnpm publishes it (`catalog:`
 * and `workspace:` specifiers rewritten to versions, which `npm pack` would leave as they are) and
 * returns the tarball's absolute path. `out` may already hold other packages' tarballs.
 */
export function pnpmPack(dir: string, out: string): string {
  pnpm(["pack", "--pack-destination", out], dir);
  const { name, version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name: string;
    version: string;
  };
  const expected = `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
  const tarball = readdirSync(out).find((file) => file === expected);
  if (!tarball) throw new Error(`pnpm pack left no ${expected} in ${out}`);
  return join(out, tarball);
}
