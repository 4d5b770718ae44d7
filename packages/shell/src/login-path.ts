import { spawn } from "node:child_process";
import { isExecutableFile } from "./executable-file.js";

/** Seed 001 §5: the probe is bounded to 5 s. */
export const LOGIN_PATH_PROBE_MS = 5_000;

/** Login shells tried when $SHELL names none that can run, in the seed's order. */
export const FALLBACK_LOGIN_SHELLS: readonly string[] = ["/bin/zsh", "/bin/bash", "/bin/sh"];

let cached: Promise<string | undefined> | undefined;

/**
 * The PATH the user's login shell sets up, asked once per process (`options.shell.login_path_probe`)
 * and then cached; undefined when the probe failed in any way, and the caller keeps its own PATH.
 * `bash -lc` alone reads only bash's profile, so tools that zsh's start-up files put on PATH (nvm,
 * pnpm, Homebrew) would otherwise be invisible to commands.
 */
export function loginPath(): Promise<string | undefined> {
  cached ??= probeLoginPath(loginShell(process.env["SHELL"]));
  return cached;
}

/** The shell to probe: $SHELL when it is an absolute executable, else the first fallback present. */
export function loginShell(shell: string | undefined): string | undefined {
  if (shell?.startsWith("/") && isExecutableFile(shell)) return shell;
  return FALLBACK_LOGIN_SHELLS.find(isExecutableFile);
}

const MARKER = "PABLO_LOGIN_PATH=";
const MAX_PROBE_OUTPUT = 64 * 1024;
const MAX_PATH_LENGTH = 16 * 1024;

/**
 * Runs `shell -lic` printing `$PATH` after a marker (start-up files may print anything before
 * it), in its own process group with stdin closed and only the variables a login needs to find
 * the user's start-up files. Best-effort: a missing shell, a non-zero exit, a timeout or a PATH
 * that is not a list of absolute directories gives undefined. Every process it started is
 * killed before it settles. Contract: never throws.
 */
export async function probeLoginPath(
  shell: string | undefined,
  timeoutMs: number = LOGIN_PATH_PROBE_MS,
): Promise<string | undefined> {
  if (!shell) return undefined;
  const output = await runProbe(shell, timeoutMs);
  if (output === undefined) return undefined;
  const at = output.lastIndexOf(MARKER);
  return at < 0 ? undefined : validPath(output.slice(at + MARKER.length));
}

function runProbe(shell: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(shell, ["-lic", `printf '\\n%s%s' '${MARKER}' "$PATH"`], {
        env: probeEnvironment(),
        stdio: ["ignore", "pipe", "ignore"],
        detached: true,
      });
    } catch {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      killGroup();
      resolve(undefined);
    }, timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      if (size < MAX_PROBE_OUTPUT) chunks.push(chunk);
      size += chunk.length;
    });
    child.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      // Start-up files may leave background jobs behind; they must not outlive the probe.
      killGroup();
      resolve(code === 0 && size <= MAX_PROBE_OUTPUT ? Buffer.concat(chunks).toString("utf8") : undefined);
    });
  });
}

/** What a login shell needs to find the user's start-up files, and nothing else of the host's. */
function probeEnvironment(): Record<string, string> {
  const env: Record<string, string> = { TERM: "dumb" };
  for (const name of ["HOME", "USER", "LOGNAME", "SHELL", "PATH", "LANG"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function validPath(path: string): string | undefined {
  if (path === "" || path.length > MAX_PATH_LENGTH) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a PATH with control characters is refused.
  if (/[\u0000-\u001f\u007f]/.test(path)) return undefined;
  return path.split(":").every((entry) => entry.startsWith("/")) ? path : undefined;
}
