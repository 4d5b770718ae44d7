/**
 * The outermost test tier: the built `pablo` binary driven from outside, as a person drives it.
 * A fresh `HOME` (a temporary directory, no `XDG_*`), a clean environment, a real terminal under
 * tmux for anything interactive, and a loopback model server whose requests the test reads.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  anthropicReply,
  type LoopbackReply,
  type LoopbackServer,
  type RecordedRequest,
  type ScriptedTurn,
  startLoopbackServer,
} from "@pablo/agent/testing";
import { expect, onTestFinished } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
/** The built binary: `pnpm build` runs before `pnpm test`, so this is what a user installs. */
export const PABLO_BIN = resolve(HERE, "..", "..", "dist", "main.js");
export const TMUX = ["/usr/bin/tmux", "/usr/local/bin/tmux"].find((p) => existsSync(p));

/** A home directory of a user who never ran Pablo, removed when the test finishes. */
export interface Home {
  readonly home: string;
  /** The default state directory under this home. */
  readonly state: string;
  /** Makes a directory under the home with the given files; returns its path. */
  dir(path: string, files?: Record<string, string>): string;
  /** Writes one file under the home; returns its path. */
  write(path: string, text: string): string;
  /** The audit records of the default audit log. */
  audit(): Array<Record<string, unknown>>;
}

export function freshHome(): Home {
  const home = mkdtempSync(join(tmpdir(), "pablo-e2e-home-"));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    const full = join(home, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
    return full;
  };
  const state = join(home, ".local", "state", "pablo");
  return {
    home,
    state,
    write,
    dir(path, files = {}) {
      const full = join(home, path);
      mkdirSync(full, { recursive: true });
      for (const [name, text] of Object.entries(files)) write(join(path, name), text);
      return full;
    },
    audit() {
      const file = join(state, "audit.jsonl");
      if (!existsSync(file)) return [];
      return readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

/** The environment of a person's shell: PATH, HOME, a terminal type, a locale; nothing of ours. */
export function personEnv(home: Home, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: home.home,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    ...extra,
  };
}

export interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built binary to completion without a terminal (stdin closed), as a script would. */
export function runPablo(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<Finished> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [PABLO_BIN, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`pablo ${args.join(" ")} did not finish\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? (signal ? 128 : -1), stdout, stderr });
    });
  });
}

/** What a person could not have meant to see: a Node stack trace or an internal error. */
export function expectNoStackTrace(output: string): void {
  expect(output).not.toMatch(/^\s+at .+[:(]\d+:\d+\)?$/m);
  expect(output).not.toMatch(/node:internal|Node\.js v\d+|\bTypeError\b|\bReferenceError\b/);
}

/**
 * A real terminal: the built binary in a tmux pane of a private tmux server, 200 x 50. The test
 * types with `type` / `press` and reads the screen with `screen` / `waitFor`.
 */
export class Terminal {
  readonly #socket: string;
  readonly #exitFile: string;

  private constructor(socket: string, exitFile: string) {
    this.#socket = socket;
    this.#exitFile = exitFile;
  }

  /**
   * Starts `pablo ARGS` in `cwd` with exactly `env`, on a fresh terminal (200 columns unless
   * told), under `wrapper` when given (a command such as `timeout 60` that pablo runs inside).
   */
  static open(
    args: readonly string[],
    options: { cwd: string; env: Record<string, string>; columns?: number; wrapper?: readonly string[] },
  ): Terminal {
    if (!TMUX) throw new Error("tmux is not installed (apt-get install tmux)");
    const dir = mkdtempSync(join(tmpdir(), "pablo-e2e-tty-"));
    const socket = `pablo-e2e-${randomBytes(6).toString("hex")}`;
    const exitFile = join(dir, "exit");
    const script = join(dir, "run.sh");
    const envWords = Object.entries(options.env).map(([k, v]) => quote(`${k}=${v}`));
    writeFileSync(
      script,
      [
        // Ctrl-C reaches the whole foreground group; the wrapper shell must outlive it to record
        // pablo's exit code, as a person's interactive shell outlives the program it ran.
        "trap : INT",
        `cd ${quote(options.cwd)} || exit 99`,
        `${(options.wrapper ?? []).map(quote).join(" ")} env -i ${envWords.join(" ")} ${quote(process.execPath)} ${quote(PABLO_BIN)} ${args.map(quote).join(" ")}`,
        "code=$?",
        // Whether this shell's process group holds the terminal again once pablo has ended.
        "read -r _ _ _ _ group _ _ foreground _ < /proc/$$/stat",
        `[ "$group" = "$foreground" ] && echo yes > ${quote(`${exitFile}.foreground`)}`,
        `echo $code > ${quote(exitFile)}`,
        // Keep the pane (and its last screen) until the test closes the terminal.
        "exec sleep 600",
        "",
      ].join("\n"),
    );
    const terminal = new Terminal(socket, exitFile);
    onTestFinished(() => {
      terminal.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const columns = String(options.columns ?? 200);
    terminal.#tmux([
      "new-session",
      "-d",
      "-s",
      "main",
      "-x",
      columns,
      "-y",
      "50",
      `/bin/sh ${quote(script)}`,
    ]);
    return terminal;
  }

  /** The visible screen, lines joined with newlines, trailing blanks trimmed. */
  screen(): string {
    return this.#tmux(["capture-pane", "-p", "-J", "-t", "main", "-S", "-200"]).replace(/\s+$/, "");
  }

  /** Waits until the screen shows `pattern`; fails with the screen when it does not in time. */
  async waitFor(pattern: RegExp | string, timeoutMs = 30_000): Promise<string> {
    const matches = (s: string) => (typeof pattern === "string" ? s.includes(pattern) : pattern.test(s));
    let shown = "";
    await expect
      .poll(
        () => {
          shown = this.screen();
          return matches(shown);
        },
        { timeout: timeoutMs, interval: 100, message: `screen never showed ${String(pattern)}` },
      )
      .toBe(true)
      .catch((error: Error) => {
        throw new Error(`${error.message}\n--- screen ---\n${shown}`);
      });
    return shown;
  }

  /** Types text literally, then Enter. */
  type(text: string): void {
    this.#tmux(["send-keys", "-t", "main", "-l", text]);
    this.#tmux(["send-keys", "-t", "main", "Enter"]);
  }

  /** Presses one key as tmux names it: `C-c`, `Enter`. */
  press(key: string): void {
    this.#tmux(["send-keys", "-t", "main", key]);
  }

  /** The exit code of the pablo process, once it has ended. */
  async exitCode(timeoutMs = 30_000): Promise<number> {
    await expect
      .poll(() => existsSync(this.#exitFile) && readFileSync(this.#exitFile, "utf8").trim() !== "", {
        timeout: timeoutMs,
        interval: 100,
        message: `pablo did not exit\n--- screen ---\n${this.screen()}`,
      })
      .toBe(true);
    return Number(readFileSync(this.#exitFile, "utf8").trim());
  }

  /** Whether the terminal's foreground was back with the shell that started pablo when it ended. */
  shellHeldTerminalAfter(): boolean {
    return existsSync(`${this.#exitFile}.foreground`);
  }

  close(): void {
    spawnSync(TMUX as string, ["-L", this.#socket, "kill-server"], { stdio: "ignore" });
  }

  #tmux(args: readonly string[]): string {
    const result = spawnSync(TMUX as string, ["-L", this.#socket, ...args], { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr}`);
    return result.stdout;
  }
}

/** A model on 127.0.0.1 speaking Anthropic's wire format, answering request N with step N. */
export async function loopbackModel(
  steps: readonly (ScriptedTurn | LoopbackReply | ((request: RecordedRequest) => ScriptedTurn))[],
): Promise<{ server: LoopbackServer; env: Record<string, string>; key: string }> {
  const server = await startLoopbackServer((request, index) => {
    const step = steps[index];
    if (!step) {
      return {
        kind: "http",
        status: 400,
        body: JSON.stringify({ error: { message: `no step ${index + 1}` } }),
      };
    }
    const resolved = typeof step === "function" ? step(request) : step;
    return "kind" in resolved ? resolved : anthropicReply(resolved);
  });
  onTestFinished(() => server.close());
  const key = `sk-ant-e2e-${randomBytes(8).toString("hex")}`;
  return { server, key, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: key } };
}

/** The tool result for call `id` in an Anthropic request, parsed from its JSON text. */
export function toolResultIn(request: RecordedRequest | undefined, id: string): Record<string, unknown> {
  const messages = (request?.body as { messages?: Array<{ content: unknown }> } | undefined)?.messages ?? [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block["type"] === "tool_result" && block["tool_use_id"] === id) {
        const content = block["content"];
        const text =
          typeof content === "string"
            ? content
            : (content as Array<{ text: string }>).map((c) => c.text).join("");
        return JSON.parse(text) as Record<string, unknown>;
      }
    }
  }
  throw new Error(`no tool result ${id} in the request`);
}

/** The system text of an Anthropic request. */
export function systemOf(request: RecordedRequest | undefined): string {
  const system = (request?.body as { system?: unknown } | undefined)?.system;
  if (typeof system === "string") return system;
  if (Array.isArray(system)) return system.map((b: { text?: string }) => b.text ?? "").join("\n");
  return "";
}

/** The tool names an Anthropic request offers with full schemas. */
export function offeredTools(request: RecordedRequest | undefined): string[] {
  const tools = (request?.body as { tools?: Array<{ name: string }> } | undefined)?.tools ?? [];
  return tools.map((t) => t.name);
}

/** Processes whose command line contains `needle`. */
export function processesWith(needle: string): string[] {
  const found: string[] = [];
  const result = spawnSync("/bin/ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  for (const line of result.stdout.split("\n")) if (line.includes(needle)) found.push(line.trim());
  return found;
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
