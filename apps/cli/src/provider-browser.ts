import { type BrowserOptions, createBrowserPreviewTool } from "@pablo/browser";
import type { ToolDefinition } from "@pablo/kernel";

/**
 * BrowserPreview over a browser that was found: the tool, its page runner and its workspace file
 * server (node:http) load only then, so a machine without a browser never compiles them.
 */
export function openBrowserPreview(options: {
  readonly workspace: string;
  readonly scratchDir: string;
  readonly browserPath: string;
  readonly section: BrowserOptions | undefined;
}): ToolDefinition {
  return createBrowserPreviewTool({
    workspace: options.workspace,
    scratchDir: options.scratchDir,
    browserPath: options.browserPath,
    ...(options.section ? { options: options.section } : {}),
  });
}
