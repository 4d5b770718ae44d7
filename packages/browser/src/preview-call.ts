import { createLocalFs } from "@pablo/fs";
import { fail, type ToolContext, type ToolResult } from "@pablo/kernel";
import { BrowserErrorCode } from "./errors.js";
import { browserCandidates, findBrowser } from "./find-browser.js";
import type { ResolvedBrowserOptions } from "./options.js";
import { parsePagePath, urlPathOf } from "./page-path.js";
import { type PreviewArgs, render } from "./preview-run.js";
import { type BrowserPreviewConfig, MAX_SERVED_FILE_BYTES } from "./preview-tool.js";
import { openWorkspaceFiles, type WorkspaceFiles } from "./workspace-files.js";
import { startWorkspaceServer } from "./workspace-server.js";

/**
 * One BrowserPreview call (see preview-tool.ts): the workspace file server, the browser and the
 * page run, loaded on the tool's first call.
 */
export async function preview(
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
