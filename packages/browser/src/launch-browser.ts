import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { Browser } from "puppeteer-core";
import { type BrowserProcess, browserProcesses } from "./browser-processes.js";

export interface LaunchRequest {
  readonly executablePath: string;
  /** The loopback server's port: the proxy for everything and the one origin that bypasses it. */
  readonly serverPort: number;
  readonly viewport: { readonly width: number; readonly height: number };
  readonly signal: AbortSignal;
  /** Milliseconds the browser may take to start. */
  readonly timeoutMs: number;
}

/** A browser of one call, with the temporary home and profile it owns. */
export interface BrowserRun {
  readonly directory: string;
  readonly userDataDir: string;
  browser: Browser | undefined;
  leader: number | undefined;
}

/**
 * Creates the run's temporary directory (a fresh profile and home), to be passed to
 * {@link startBrowser} and always to {@link endBrowser}, whatever happens in between.
 */
export async function prepareRun(): Promise<BrowserRun> {
  const directory = await mkdtemp(join(tmpdir(), "pablo-browser-"));
  const userDataDir = join(directory, "profile");
  await mkdir(userDataDir, { mode: 0o700 });
  await mkdir(join(directory, "home"), { mode: 0o700 });
  return { directory, userDataDir, browser: undefined, leader: undefined };
}

/**
 * Starts headless Chromium over a pipe (no DevTools port is opened). Network containment does
 * not rest on the page's request interception alone: every connection goes through a proxy that
 * is the loopback server itself, which refuses anything but its own origin, and host resolution
 * maps every name to nothing. The environment is cleared to a few variables.
 */
export async function startBrowser(run: BrowserRun, request: LaunchRequest): Promise<Browser> {
  const origin = `127.0.0.1:${request.serverPort}`;
  const home = join(run.directory, "home");
  // Loaded on the first preview, not when the tool is built: listing tools never pays for puppeteer.
  const { default: puppeteer } = await import("puppeteer-core");
  const browser = await puppeteer.launch({
    executablePath: request.executablePath,
    headless: true,
    pipe: true,
    userDataDir: run.userDataDir,
    defaultViewport: { width: request.viewport.width, height: request.viewport.height },
    timeout: request.timeoutMs,
    signal: request.signal,
    // The host owns its signals: a library must not exit the process on SIGINT.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    dumpio: false,
    env: {
      PATH: "/usr/bin:/bin",
      HOME: home,
      TMPDIR: run.directory,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_CACHE_HOME: join(home, ".cache"),
      LANG: "C.UTF-8",
    },
    args: [
      // Chromium's sandbox cannot start as root; elsewhere it stays on.
      ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
      `--proxy-server=http://${origin}`,
      // `<-loopback>` drops the implicit direct route to every loopback address; only our origin bypasses.
      `--proxy-bypass-list=<-loopback>;${origin}`,
      "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
      "--webrtc-ip-handling-policy=disable_non_proxied_udp",
      "--force-webrtc-ip-handling-policy",
      "--disable-component-update",
      "--disable-domain-reliability",
      "--no-pings",
      "--no-default-browser-check",
      "--no-service-autorun",
      "--disable-notifications",
    ],
  });
  run.browser = browser;
  run.leader = browser.process()?.pid;
  return browser;
}

/** How a run ended: processes still alive after the allowance (none, normally). */
export interface EndOutcome {
  readonly survivors: BrowserProcess[];
  readonly removed: boolean;
}

/**
 * Kills the run's processes and removes its directory. SIGKILL to the process group, then to
 * every process the table still shows for the profile (crashpad handlers leave the group), until
 * none is left or `allowanceMs` passes. Contract: never throws.
 */
export async function endBrowser(run: BrowserRun, allowanceMs = 3_000): Promise<EndOutcome> {
  const until = performance.now() + allowanceMs;
  if (run.leader !== undefined) signal(-run.leader);
  let found = browserProcesses(run.userDataDir, run.leader);
  let pause = 5;
  while (found.length > 0 && performance.now() < until) {
    for (const { pid } of found) signal(pid);
    await delay(pause);
    pause = Math.min(pause * 2, 50);
    found = browserProcesses(run.userDataDir, run.leader);
  }
  // The pipe closes with the process; puppeteer notices it. Nothing to await on the connection.
  run.browser = undefined;
  let removed = true;
  try {
    await rm(run.directory, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    removed = false;
  }
  return { survivors: found, removed };
}

function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
