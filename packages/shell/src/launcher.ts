import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import type { Socket } from "node:net";
import { constants } from "node:os";
import { dirname } from "node:path";
import { perlPath } from "./inherited-fds.js";
import { LAUNCHER_SCRIPT } from "./launcher-script.js";
import { startTicks } from "./proc-processes.js";
import { connectReader, privateSocketPath } from "./socket-pairs.js";

/** What to start: a program and its arguments, without a shell, in `cwd` with exactly `env`. */
export interface LaunchSpec {
  readonly executable: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/** One output stream of a launched command, read here from a socket the launcher handed to it. */
export interface LaunchedStream {
  /** Resolves once every holder of the command's end has closed it and all output was delivered. */
  readonly closed: Promise<void>;
  /** What the command's descriptor is open on as `/proc/PID/fd` shows it (`socket:[N]`). */
  target(): string;
  destroy(): void;
}

export interface LaunchedLeader {
  readonly pid: number;
  /** Its start time in clock ticks since boot, read by the launcher before it could be reaped. */
  readonly startTicks: number | undefined;
  readonly stdout: LaunchedStream;
  readonly stderr: LaunchedStream;
  /**
   * Its exit. `exitCode` and `signal` are both null when the launcher ended before it could
   * report one; the exit is then seen as the process leaving /proc.
   */
  readonly exited: Promise<{ readonly exitCode: number | null; readonly signal: string | null }>;
}

export type LaunchResult =
  | { readonly ok: true; readonly leader: LaunchedLeader }
  | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * A long-lived helper process that forks and execs commands for this host. Forking Node, with its
 * large address space, costs far more than forking a small Perl process: `true` through the
 * launcher takes about as long as a bare spawn. The launcher is started by {@link readyLauncher}
 * in the background; until it is ready, and wherever it cannot run (no Perl, not Linux), commands
 * are spawned directly.
 *
 * Only this user can reach it: its socket lives in a 0700 directory, and a connection is a
 * command's output stream only after it presents a random token sent over the launcher's stdin.
 * Commands get the umask of this process when they are launched, but the resource limits the host
 * had when the launcher started (Node cannot change its own, so these only differ when another
 * program changed them meanwhile with prlimit).
 */
export interface Launcher {
  launch(
    spec: LaunchSpec,
    onStdout: (chunk: Buffer) => void,
    onStderr: (chunk: Buffer) => void,
  ): Promise<LaunchResult>;
}

/**
 * The host's launcher once it is ready, or undefined: before it is (the first call starts it), or
 * where none can run. A launcher that ended is started again on a later call, a few times at most.
 */
export function readyLauncher(): Launcher | undefined {
  if (current?.ready) return current;
  if (current === undefined && starts < MAX_STARTS && process.platform === "linux") {
    starts++;
    current = HostLauncher.start();
  }
  return undefined;
}

/**
 * Codes of a launch that failed for a reason other than an errno (whose name, `ENOENT` say, is the
 * code otherwise, as with spawn). They appear as `details.code` of the TOOL_FAILED result.
 */
const LaunchFailureCode = {
  /** A NUL byte in the executable, an argument, cwd or environment: spawn's own code for it. */
  NUL_IN_ARGUMENT: "ERR_INVALID_ARG_VALUE",
  /** The launcher ended before it answered. */
  LAUNCHER_ENDED: "ELAUNCHER",
} as const;

/** Starts of the launcher in this process; one that keeps ending is not restarted forever. */
const MAX_STARTS = 3;
let starts = 0;
let current: HostLauncher | undefined;

/** The launcher must be ready within this long, or it is given up. */
const READY_MS = 5_000;
/** How often a leader is looked for in /proc once the launcher that started it has ended. */
const ORPHAN_POLL_MS = 50;

interface Pending {
  readonly resolve: (result: LaunchResult) => void;
  readonly spec: LaunchSpec;
  readonly stdout: WatchedReader;
  readonly stderr: WatchedReader;
}

interface WatchedReader {
  readonly socket: Socket;
  readonly closed: Promise<void>;
  destroy(): void;
}

interface Running {
  readonly pid: number;
  readonly startTicks: number | undefined;
  readonly resolve: (exit: { exitCode: number | null; signal: string | null }) => void;
}

class HostLauncher implements Launcher {
  ready = false;
  readonly #child: ChildProcess;
  readonly #path: string;
  readonly #pending = new Map<number, Pending>();
  readonly #running = new Map<number, Running>();
  #nextId = 1;
  #lines = "";
  #ended = false;

  static start(): HostLauncher | undefined {
    const perl = perlPath();
    if (!perl) return undefined;
    let path: string;
    try {
      path = privateSocketPath("pablo-launcher-", "l.sock");
    } catch {
      return undefined;
    }
    try {
      // An empty environment: PERL5OPT or PERL5LIB of the host must not reach the launcher.
      const child = spawn(perl, ["-e", LAUNCHER_SCRIPT, path, dirname(path)], {
        stdio: ["pipe", "pipe", "ignore"],
        env: {},
        // Its own session, so a terminal's Ctrl-C meant for the host does not end it.
        detached: true,
      });
      return new HostLauncher(child, path);
    } catch {
      rmSync(dirname(path), { recursive: true, force: true });
      return undefined;
    }
  }

  private constructor(child: ChildProcess, path: string) {
    this.#child = child;
    this.#path = path;
    child.on("error", () => this.#end());
    child.on("exit", () => this.#end());
    child.stdin?.on("error", () => this.#end());
    child.stdout?.setEncoding("latin1");
    child.stdout?.on("data", (text: string) => this.#read(text));
    child.stdout?.on("end", () => this.#end());
    const timer = setTimeout(() => {
      if (!this.ready) this.#child.kill("SIGKILL");
    }, READY_MS);
    timer.unref();
    this.#idle();
    process.once("exit", () => this.#removeDirectory());
  }

  launch(
    spec: LaunchSpec,
    onStdout: (chunk: Buffer) => void,
    onStderr: (chunk: Buffer) => void,
  ): Promise<LaunchResult> {
    const invalid = withNul(spec);
    if (invalid) {
      return Promise.resolve({
        ok: false,
        code: LaunchFailureCode.NUL_IN_ARGUMENT,
        message: `The argument '${invalid}' must be a string without null bytes`,
      });
    }
    if (this.#ended) return Promise.resolve(launcherGone(spec));
    const id = this.#nextId++;
    const tokens = randomBytes(32);
    const argv = [spec.executable, ...spec.args];
    const fields = [
      String(id),
      tokens.subarray(0, 16).toString("hex"),
      tokens.subarray(16).toString("hex"),
      spec.cwd,
      String(process.umask()),
      spec.executable,
      String(argv.length),
      ...argv,
      ...Object.entries(spec.env).map(([name, value]) => `${name}=${value}`),
    ];
    const payload = Buffer.from(fields.join("\0"));
    // The request goes first, so the launcher knows the tokens by the time the streams connect.
    this.#child.stdin?.write(Buffer.concat([Buffer.from(`${payload.length}\n`), payload]));
    // Watched for close from the start: a fast command can be over before its start is reported.
    const stdout = watchedReader(connectReader(this.#path, tokens.subarray(0, 16), onStdout));
    const stderr = watchedReader(connectReader(this.#path, tokens.subarray(16), onStderr));
    this.#busy();
    return new Promise<LaunchResult>((resolve) => {
      this.#pending.set(id, { resolve, spec, stdout, stderr });
    });
  }

  #read(text: string): void {
    this.#lines += text;
    let newline = this.#lines.indexOf("\n");
    while (newline >= 0) {
      const line = this.#lines.slice(0, newline);
      this.#lines = this.#lines.slice(newline + 1);
      this.#answer(line.split(" "));
      newline = this.#lines.indexOf("\n");
    }
  }

  #answer([kind, idText, ...rest]: string[]): void {
    if (kind === "ready") {
      this.ready = true;
      return;
    }
    const id = Number(idText);
    if (kind === "E") {
      const running = this.#running.get(id);
      this.#running.delete(id);
      running?.resolve(decodeWaitStatus(Number(rest[0])));
      this.#idle();
      return;
    }
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (kind === "F") {
      pending.stdout.destroy();
      pending.stderr.destroy();
      const code = errnoName(Number(rest[0]));
      pending.resolve({ ok: false, code, message: `spawn ${pending.spec.executable} ${code}` });
      this.#idle();
      return;
    }
    const [pid, stdoutInode, stderrInode, ticks] = rest.map(Number) as [number, number, number, number];
    const exited = new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => {
      this.#running.set(id, { pid, startTicks: ticks > 0 ? ticks : undefined, resolve });
    });
    pending.resolve({
      ok: true,
      leader: {
        pid,
        startTicks: ticks > 0 ? ticks : undefined,
        stdout: launchedStream(pending.stdout, stdoutInode),
        stderr: launchedStream(pending.stderr, stderrInode),
        exited,
      },
    });
  }

  /** The launcher ended: requests it had not answered fail, and running leaders are watched in /proc. */
  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.ready = false;
    if (current === this) current = undefined;
    this.#removeDirectory();
    for (const pending of this.#pending.values()) {
      pending.stdout.destroy();
      pending.stderr.destroy();
      pending.resolve(launcherGone(pending.spec));
    }
    this.#pending.clear();
    for (const running of this.#running.values()) watchOrphan(running);
    this.#running.clear();
  }

  #removeDirectory(): void {
    rmSync(dirname(this.#path), { recursive: true, force: true });
  }

  /** The launcher keeps the host alive only while a command it started is running. */
  #busy(): void {
    (this.#child.stdout as Socket | null)?.ref();
  }

  #idle(): void {
    if (this.#pending.size > 0 || this.#running.size > 0) return;
    this.#child.unref();
    (this.#child.stdout as Socket | null)?.unref();
    (this.#child.stdin as unknown as Socket | null)?.unref();
  }
}

function watchedReader(socket: Socket): WatchedReader {
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, closed, destroy: () => socket.destroy() };
}

function launchedStream(reader: WatchedReader, inode: number): LaunchedStream {
  return {
    closed: reader.closed,
    target: () => (inode > 0 ? `socket:[${inode}]` : ""),
    destroy: () => reader.destroy(),
  };
}

function launcherGone(spec: LaunchSpec): LaunchResult {
  return {
    ok: false,
    code: LaunchFailureCode.LAUNCHER_ENDED,
    message: `spawn ${spec.executable}: the process launcher ended`,
  };
}

/** The name of the first field holding a NUL, which no exec can pass: as spawn names it. */
function withNul(spec: LaunchSpec): string | undefined {
  if (spec.executable.includes("\0")) return "file";
  if (spec.cwd.includes("\0")) return "options.cwd";
  const arg = spec.args.findIndex((value) => value.includes("\0"));
  if (arg >= 0) return `args[${arg}]`;
  for (const [name, value] of Object.entries(spec.env))
    if (name.includes("\0") || value.includes("\0")) return "options.env";
  return undefined;
}

function decodeWaitStatus(status: number): { exitCode: number | null; signal: string | null } {
  const signal = status & 0x7f;
  if (signal === 0) return { exitCode: (status >> 8) & 0xff, signal: null };
  return { exitCode: null, signal: signalName(signal) };
}

function signalName(signal: number): string {
  for (const [name, value] of Object.entries(constants.signals)) if (value === signal) return name;
  return `SIG${signal}`;
}

function errnoName(errno: number): string {
  for (const [name, value] of Object.entries(constants.errno)) if (value === errno) return name;
  return `E${errno}`;
}

/**
 * After the launcher ended, a leader it started is re-parented and reaped by someone else; its exit
 * status is lost, and its exit is seen as its /proc entry going (or being reused by another start).
 */
function watchOrphan(running: Running): void {
  const timer = setInterval(() => {
    const ticks = startTicks(running.pid);
    if (ticks === undefined || (running.startTicks !== undefined && ticks !== running.startTicks)) {
      clearInterval(timer);
      running.resolve({ exitCode: null, signal: null });
    }
  }, ORPHAN_POLL_MS);
}
