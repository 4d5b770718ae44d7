import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createLocalFs } from "@pablo/fs";
import {
  type Access,
  defineTool,
  fail,
  ok,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from "@pablo/kernel";
import Type from "typebox";
import { BrowserErrorCode } from "./errors.js";
import { browserCandidates, findBrowser } from "./find-browser.js";
import { endBrowser, prepareRun, startBrowser } from "./launch-browser.js";
import { type BrowserOptions, type ResolvedBrowserOptions, resolveBrowserOptions } from "./options.js";
import { type PagePath, parsePagePath, urlPathOf } from "./page-path.js";
import { type PageFacts, renderPage, ScreenshotTooLarge } from "./render-page.js";
import { openWorkspaceFiles, type WorkspaceFiles } from "./workspace-files.js";
import { startWorkspaceServer } from "./workspace-server.js";

export interface BrowserPreviewConfig {
  /** The session's workspace root; pages and everything they load come from here only. */
  readonly workspace: string;
  /** The session's scratch directory (absolute); screenshots are written here. */
  readonly scratchDir: string;
  /** Absolute browser executable; found with {@link findBrowser} when absent. */
  readonly browserPath?: string;
  /** The `[options.browser]` section as written. */
  readonly options?: BrowserOptions;
}

/** Largest workspace file the loopback server sends. */
export const MAX_SERVED_FILE_BYTES = 16 * 1024 * 1024;
/** Largest screenshot a result points to. */
export const MAX_SCREENSHOT_BYTES = 8 * 1024 * 1024;
const MAX_TITLE_CHARS = 1024;
const MAX_WAIT_MS = 10_000;
/** Time allowed to end the browser and remove its profile after a call. */
const CLEANUP_MS = 3_000;

export const BrowserPreviewArgs = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      maxLength: 4096,
      description:
        'Workspace-relative path of an HTML file, or of a directory whose index.html is the page ("." for the workspace root).',
    }),
    width: Type.Optional(
      Type.Integer({
        minimum: 320,
        maximum: 1920,
        description: "Viewport width in CSS pixels (default 1280).",
      }),
    ),
    height: Type.Optional(
      Type.Integer({
        minimum: 240,
        maximum: 1920,
        description: "Viewport height in CSS pixels (default 800).",
      }),
    ),
    wait_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_WAIT_MS,
        description: "Extra milliseconds to let scripts run after the page's load event (default 0).",
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * BrowserPreview (seed 001): renders a workspace page in headless Chromium and returns its title,
 * visible text and a screenshot in the session scratch. Read-only and low risk, so it is
 * available in every operating mode; deferred, so it is loaded through ToolSearch. The page is
 * served from the workspace on a loopback port that lives for the call, and the browser can reach
 * nothing else. Every file the page loads is decided by the call's authority like a read.
 */
export function createBrowserPreviewTool(
  config: BrowserPreviewConfig,
): ToolDefinition<typeof BrowserPreviewArgs> {
  const options = resolveBrowserOptions(config.options);
  let canonicalWorkspace: string | undefined;
  const workspaceRoot = (): string => {
    canonicalWorkspace ??= realpathSync.native(config.workspace);
    return canonicalWorkspace;
  };
  return defineTool({
    name: "browser.preview",
    summary: "Render a workspace HTML page headless: title, visible text, screenshot",
    description:
      "Opens a workspace page (an HTML file, or a directory's index.html) in a headless browser and returns its " +
      "`title`, its visible `text` (bounded; `textTruncated` says when it was cut), the final `url`, and `screenshot`: " +
      "the absolute path of a PNG of the viewport in the session scratch directory. The page and everything it loads " +
      "come from the workspace only; requests to any other address are blocked and counted in `blockedRequests`. " +
      "Paths are relative to the workspace.",
    inputSchema: BrowserPreviewArgs,
    risk: "low",
    effects: ["fs.read", "ui"],
    category: "preview",
    mutates: false,
    deferred: true,
    accesses(args) {
      const page = parsePagePath(args.path);
      if ("ok" in page) return page;
      return declaredAccesses(workspaceRoot(), page);
    },
    execute: (args, ctx) => preview(config, options, args, ctx),
  });
}

function declaredAccesses(root: string, page: PagePath): Access[] {
  const components = page.directory ? [...page.components, "index.html"] : page.components;
  const path = root === "/" ? `/${components.join("/")}` : [root, ...components].join("/");
  return [{ dimension: "fs.read", path, root: "workspace" }];
}

type Args = { path: string; width?: number; height?: number; wait_ms?: number };

async function preview(
  config: BrowserPreviewConfig,
  options: ResolvedBrowserOptions,
  args: Args,
  ctx: ToolContext,
): Promise<ToolResult> {
  const page = parsePagePath(args.path);
  if ("ok" in page) return page;
  const executable = findBrowser(
    config.browserPath !== undefined ? [config.browserPath] : browserCandidates(options.path),
  );
  if (!executable.ok) return fail(BrowserErrorCode.TOOL_FAILED, executable.reason);
  let files: WorkspaceFiles;
  try {
    files = await openWorkspaceFiles(createLocalFs(), config.workspace);
  } catch (error) {
    return fail(BrowserErrorCode.NOT_FOUND, `cannot open the workspace: ${messageOf(error)}`);
  }
  try {
    // The page itself is checked with the server's own resolver before a browser starts.
    const target = await files.read(page.components, MAX_SERVED_FILE_BYTES);
    if (!target.ok) return fail(target.code, target.message, { path: args.path });
    return await withServer(files, ctx, async (server) =>
      render(
        {
          executable: executable.path,
          serverPort: server.port,
          url: `${server.origin}${urlPathOf(page)}`,
          origin: server.origin,
          args,
          options,
          scratchDir: config.scratchDir,
        },
        ctx,
      ).then((result) => withServerFacts(result, server.foreignRequests, server.deniedFiles)),
    );
  } finally {
    await files.close().catch(() => undefined);
  }
}

async function withServer<T>(
  files: WorkspaceFiles,
  ctx: ToolContext,
  body: (server: Awaited<ReturnType<typeof startWorkspaceServer>>) => Promise<T>,
): Promise<T> {
  const server = await startWorkspaceServer({
    files,
    maxFileBytes: MAX_SERVED_FILE_BYTES,
    allows: (path) => ctx.authorize([{ dimension: "fs.read", path, root: "workspace" }]).verdict === "allow",
  });
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

interface RenderPlan {
  readonly executable: string;
  readonly serverPort: number;
  readonly url: string;
  readonly origin: string;
  readonly args: Args;
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
async function render(plan: RenderPlan, ctx: ToolContext): Promise<ToolResult> {
  const budgetMs = Math.max(1, Math.min(plan.options.timeoutMs, ctx.deadline - Date.now()));
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Stopped("TOOL_TIMEOUT")), budgetMs);
  const onAbort = (): void =>
    stop.abort(new Stopped(Date.now() >= ctx.deadline ? "TOOL_TIMEOUT" : "TOOL_CANCELLED"));
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  const run = await prepareRun();
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
      screenshotPath: join(
        plan.scratchDir,
        `browser-preview-${Date.now()}-${randomBytes(4).toString("hex")}.png`,
      ),
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
  await Promise.race([work.catch(() => undefined), new Promise((r) => setTimeout(r, CLEANUP_MS))]);
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

function withServerFacts(result: ToolResult, foreign: number, denied: number): ToolResult {
  const notes = { foreignRequests: foreign, deniedFiles: denied };
  return result.ok ? { ...result, auditNotes: notes } : { ...result, auditNotes: notes };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
