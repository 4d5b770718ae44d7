import { fstatSync } from "node:fs";

/** The standard streams a command wrote to or read from: only those have handles of their own. */
export interface UsedStdio {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
}

/**
 * Ends the process once the command is done and nothing is left for Node to do, skipping Node's
 * teardown of its heap, which it runs before any exit it reaches on its own (about 10 ms after
 * `pablo tools --json`, a twentieth of the command). It exits only where Node would exit at once
 * anyway: on the next turn of the loop (queued promise work has run), with no beforeExit listener
 * (it could start more work), nothing queued on stdout or stderr, and no handle, request or timer
 * left but the standard streams' own. Otherwise Node exits on its own, as before. `exit` listeners
 * (the audit store's last flush) run either way.
 */
export function exitWhenIdle(used: UsedStdio): void {
  // A command that read stdin may have left it reading; Node then decides, as it always did.
  if (used.stdin) return;
  setImmediate(() => {
    if (process.listenerCount("beforeExit") > 0) return;
    if (used.stdout && process.stdout.writableLength > 0) return;
    if (used.stderr && process.stderr.writableLength > 0) return;
    const stdio = stdioHandles(used);
    if (leftoverResources(process.getActiveResourcesInfo(), stdio).length > 0) return;
    process.exit();
  });
}

/**
 * The active resources that are not the standard streams' handles: `active` as
 * `process.getActiveResourcesInfo()` names them, `stdio` the handle names of the streams in use.
 */
export function leftoverResources(active: readonly string[], stdio: readonly string[]): string[] {
  const expected = [...stdio];
  const left: string[] = [];
  for (const name of active) {
    const at = expected.indexOf(name);
    if (at >= 0) expected.splice(at, 1);
    else left.push(name);
  }
  return left;
}

/**
 * The libuv handle each used standard stream holds: a pipe or socket, a terminal, or none (a
 * file). A character device is counted as a terminal without asking (node:tty is not loaded for
 * this): for /dev/null, which Node writes as a file, that only allows a handle that is not there.
 */
function stdioHandles(used: UsedStdio): string[] {
  const names: string[] = [];
  for (const [fd, inUse] of [
    [0, used.stdin],
    [1, used.stdout],
    [2, used.stderr],
  ] as const) {
    if (!inUse) continue;
    const name = handleName(fd);
    if (name) names.push(name);
  }
  return names;
}

function handleName(fd: number): string | undefined {
  try {
    const info = fstatSync(fd);
    if (info.isFIFO() || info.isSocket()) return "PipeWrap";
    if (info.isCharacterDevice()) return "TTYWrap";
  } catch {
    // A closed descriptor has no handle.
  }
  return undefined;
}
