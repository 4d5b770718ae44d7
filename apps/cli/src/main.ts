#!/usr/bin/env node
import { fstatSync } from "node:fs";
import { createRequire } from "node:module";
import { killDescendants } from "./end-descendants.js";
import { exitWhenIdle } from "./exit-when-idle.js";
import { describeFault } from "./fault.js";

// Whatever escapes a command (a rejected promise in a stream handler, a throw in a timer) ends as
// one coded line and exit 2, never a stack trace.
const fault = (error: unknown): never => {
  process.stderr.write(`pablo: ${describeFault(error)}\n`);
  process.exit(2);
};
process.on("uncaughtException", fault);
process.on("unhandledRejection", fault);

const controller = new AbortController();
let interrupted = 0;
// The first Ctrl-C cancels: running commands get SIGTERM and their grace, and every call is
// recorded. A second one will not wait for the grace: every process pablo started is killed now,
// and the cancellation finishes (records included) at once. Only a third exits without waiting.
process.on("SIGINT", () => {
  interrupted++;
  if (interrupted === 1) controller.abort();
  else if (interrupted === 2) {
    process.stderr.write("\npablo: stopping now: ending every process it started\n");
    killDescendants();
  } else {
    killDescendants();
    process.exit(130);
  }
});
process.on("SIGTERM", () => controller.abort());
// A closed terminal cancels like SIGTERM, so the running command ends and the call is recorded;
// the terminal is gone, so what is still written to it is dropped instead of failing the exit.
process.on("SIGHUP", () => {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  controller.abort();
});

let terminal: boolean | undefined;
function isTerminal(): boolean {
  if (terminal === undefined) {
    terminal = false;
    if (mayBeTerminal(0) && mayBeTerminal(2)) {
      const { isatty } = createRequire(import.meta.url)("node:tty") as typeof import("node:tty");
      terminal = isatty(0) && isatty(2);
    }
  }
  return terminal;
}

/**
 * False for a descriptor that cannot be a terminal, decided by one fstat: node:tty costs about
 * 4 ms to load (it brings node:net and the stream modules), and a script's stdin is most often a
 * pipe, a file or /dev/null. Only a character device can be a terminal; on Linux, /dev/null and
 * the other memory devices (major 1) are character devices that never are.
 */
function mayBeTerminal(fd: number): boolean {
  let stat: import("node:fs").Stats;
  try {
    stat = fstatSync(fd);
  } catch {
    return false;
  }
  if (!stat.isCharacterDevice()) return false;
  return process.platform !== "linux" || Math.floor(stat.rdev / 256) % 4096 !== 1;
}

// Loaded after the handlers, so even a module that fails to load ends as one coded line.
const { run } = await import("./cli.js").catch(fault);
const used = { stdin: false, stdout: false, stderr: false };
const code = await run(process.argv.slice(2), {
  stdout: (text) => {
    used.stdout = true;
    process.stdout.write(text);
  },
  stderr: (text) => {
    used.stderr = true;
    process.stderr.write(text);
  },
  // Made on first read: opening process.stdin costs milliseconds that most commands never use.
  get stdin() {
    used.stdin = true;
    return process.stdin;
  },
  // Read on first use: node:tty brings the socket and stream modules, which `--help` never needs.
  get isTTY() {
    return isTerminal();
  },
  columns: () => {
    used.stderr = true;
    return process.stderr.columns;
  },
  cwd: process.cwd(),
  env: process.env,
  signal: controller.signal,
});
process.exitCode = interrupted > 0 && code !== 0 ? 130 : code;
exitWhenIdle(used);
