import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/**
 * What only running a command needs (the process runner, the launcher and its sockets, output
 * capture and shaping, the patch-failure count, the login PATH probe; node:child_process and
 * node:net with them), loaded on first use, so that building and listing shell.run (`pablo tools`,
 * an MCP `tools/list`, every `pablo` start) never compiles it. The one lazy boundary of this package.
 */
export const onDemand = {
  run: once(() => import("./shell-run.js")),
  loginPath: once(() => import("./login-path.js")),
  /** node:child_process for the probes that must answer synchronously (bwrap's when the tool is made, unshare's). */
  childProcess: (): typeof import("node:child_process") => load("node:child_process"),
};

/**
 * The module's promise, kept after the first load: every `import()` resolves its specifier again,
 * about 6 µs per call here (and a round trip to the loader thread under a loader such as tsx's,
 * about 0.3 ms), and shell.run asks on every command. A failed load is forgotten, so a later call
 * tries again.
 */
export function once<T>(importModule: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    if (!loaded) {
      loaded = importModule();
      loaded.catch(() => {
        loaded = undefined;
      });
    }
    return loaded;
  };
}
