import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/**
 * What only running a command needs (the process runner, the launcher and its sockets, output
 * capture and shaping, the patch-failure count, the login PATH probe; node:child_process and
 * node:net with them), loaded on first use, so that building and listing shell.run (`pablo tools`,
 * an MCP `tools/list`, every `pablo` start) never compiles it. The one lazy boundary of this package.
 */
export const onDemand = {
  run: () => import("./shell-run.js"),
  loginPath: () => import("./login-path.js"),
  /** node:child_process for the probes that must answer synchronously (bwrap's when the tool is made, unshare's). */
  childProcess: (): typeof import("node:child_process") => load("node:child_process"),
};
