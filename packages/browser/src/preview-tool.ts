import { realpathSync } from "node:fs";
import { createLocalFs } from "@pablo/fs";
import {
  type Access,
  defineTool,
  fail,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from "@pablo/kernel";
import Type from "typebox";
import { BrowserErrorCode } from "./errors.js";
import { browserCandidates, findBrowser } from "./find-browser.js";
import { type BrowserOptions, type ResolvedBrowserOptions, resolveBrowserOptions } from "./options.js";
import { type PagePath, parsePagePath, urlPathOf } from "./page-path.js";
import { type PreviewArgs, render } from "./preview-run.js";
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
const MAX_WAIT_MS = 10_000;

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

async function preview(
  config: BrowserPreviewConfig,
  options: ResolvedBrowserOptions,
  args: PreviewArgs,
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

/** What the server refused, for the audit record only: the model sees `blockedRequests`. */
function withServerFacts(result: ToolResult, foreign: number, denied: number): ToolResult {
  return { ...result, auditNotes: { ...result.auditNotes, foreignRequests: foreign, deniedFiles: denied } };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
