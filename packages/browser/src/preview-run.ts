import { randomBytes } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fail, ok, type ToolContext, type ToolResult } from "@pablo/kernel";
import { BrowserErrorCode } from "./errors.js";
import { endBrowser, prepareRun, startBrowser } from "./launch-browser.js";
import type { ResolvedBrowserOptions } from "./options.js";
import { type PageFacts, renderPage, ScreenshotTooLarge } from "./render-page.js";

/** Largest screenshot a result points to. */
export const MAX_SCREENSHOT_BYTES = 8 * 1024 * 1024;
const MAX_TITLE_CHARS = 1024;
/** Time allowed to end the browser and remove its profile after a call. */
const CLEANUP_MS = 3_000;

export interface PreviewArgs {
  readonly path: string;
  readonly width?: number;
  readonly height?: number;
  readonly wait_ms?: number;
}

export interface RenderPlan {
  readonly executable: string;
  readonly serverPort: number;
  readonly url: string;
  readonly origin: string;
  readonly args: PreviewArgs;
  readonly options: ResolvedBrowserOptions;
  readonly scratchDir: string;
}

/** Why a call stopped early: its own timeout, or the caller's signal. */
class Stopped extends Error {
  constructor(readonly code: "TOOL_TIMEOUT" | "TOOL_CANCELLED") {
    super(code);
  }
}

/**
 * Starts the browser, renders and always ends the browser. The call's time is bounded by the
 * smaller of `timeout_ms` and the kernel's deadline; on timeout or abort the browser is killed
 * first, which makes every pending browser operation fail, and the work is then joined.
 */
export async function render(plan: RenderPlan, ctx: ToolContext): Promise<ToolResult> {
  const run = await prepareRun();
  const budgetMs = Math.max(1, Math.min(plan.options.timeoutMs, ctx.deadline - Date.now()));
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Stopped("TOOL_TIMEOUT")), budgetMs);
  const onAbort = (): void =>
    stop.abort(new Stopped(Date.now() >= ctx.deadline ? "TOOL_TIMEOUT" : "TOOL_CANCELLED"));
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  const screenshotPath = join(
    plan.scratchDir,
    `browser-preview-${Date.now()}-${randomBytes(4).toString("hex")}.png`,
  );
  const stopped = new Promise<never>((_, reject) => {
    if (stop.signal.aborted) reject(stop.signal.reason);
    stop.signal.addEventListener("abort", () => reject(stop.signal.reason), { once: true });
  });
  stopped.catch(() => undefined);
  const work = (async (): Promise<PageFacts> => {
    await mkdir(plan.scratchDir, { recursive: true, mode: 0o700 });
    const browser = await startBrowser(run, {
      executablePath: plan.executable,
      serverPort: plan.serverPort,
      viewport: { width: plan.args.width ?? 1280, height: plan.args.height ?? 800 },
      signal: stop.signal,
      timeoutMs: budgetMs,
    }).catch((error: unknown) => {
      throw stop.signal.aborted ? stop.signal.reason : new LaunchFailed(messageOf(error));
    });
    return renderPage(browser, {
      url: plan.url,
      origin: plan.origin,
      waitMs: plan.args.wait_ms ?? 0,
      maxTextBytes: plan.options.maxTextBytes,
      maxTitleChars: MAX_TITLE_CHARS,
      maxScreenshotBytes: MAX_SCREENSHOT_BYTES,
      screenshotPath,
      timeoutMs: budgetMs,
      signal: stop.signal,
    });
  })();
  let result: ToolResult;
  try {
    result = facts(await Promise.race([work, stopped]));
  } catch (error) {
    result = failure(stop.signal.aborted ? stop.signal.reason : error);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
  const ended = await endBrowser(run, CLEANUP_MS);
  // Joined: once the browser is gone its pending operations settle at once.
  await Promise.race([work.catch(() => undefined), delay(CLEANUP_MS, undefined, { ref: false })]);
  // A write that was already under way when the call stopped leaves no file behind a failure.
  if (!result.ok) await rm(screenshotPath, { force: true }).catch(() => undefined);
  if (ended.survivors.length > 0) {
    return fail(
      BrowserErrorCode.TOOL_CLEANUP_FAILED,
      `${ended.survivors.length} browser processes were still alive after ${CLEANUP_MS} ms`,
      { pids: ended.survivors.map((p) => p.pid) },
    );
  }
  return result;
}

class LaunchFailed extends Error {}

function facts(page: PageFacts): ToolResult {
  return ok({
    title: page.title,
    text: page.text,
    textTruncated: page.textTruncated,
    screenshot: page.screenshot,
    url: page.url,
    blockedRequests: page.blockedRequests,
  });
}

function failure(error: unknown): ToolResult {
  if (error instanceof Stopped) {
    return error.code === "TOOL_TIMEOUT"
      ? fail(BrowserErrorCode.TOOL_TIMEOUT, "the preview did not finish in time; the browser was stopped")
      : fail(BrowserErrorCode.TOOL_CANCELLED, "the preview was cancelled; the browser was stopped");
  }
  if (error instanceof LaunchFailed) {
    return fail(BrowserErrorCode.TOOL_FAILED, `the browser did not start: ${error.message}`);
  }
  if (error instanceof ScreenshotTooLarge) {
    return fail(BrowserErrorCode.LIMIT_EXCEEDED, error.message, { bytes: error.bytes, limit: error.limit });
  }
  return fail(BrowserErrorCode.TOOL_FAILED, `the page could not be rendered: ${messageOf(error)}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
