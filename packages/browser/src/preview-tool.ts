import { realpathSync } from "node:fs";
import { type Access, defineTool, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";
import { onDemand } from "./on-demand.js";
import { type BrowserOptions, resolveBrowserOptions } from "./options.js";
import { type PagePath, parsePagePath } from "./page-path.js";

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
    execute: async (args, ctx) => (await onDemand.call()).preview(config, options, args, ctx),
  });
}

function declaredAccesses(root: string, page: PagePath): Access[] {
  const components = page.directory ? [...page.components, "index.html"] : page.components;
  const path = root === "/" ? `/${components.join("/")}` : [root, ...components].join("/");
  return [{ dimension: "fs.read", path, root: "workspace" }];
}
