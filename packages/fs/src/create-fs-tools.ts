import { resolve as resolvePath } from "node:path";
import { type AnyToolDefinition, PabloError } from "@pablo/kernel";
import { type FsEnv, foldName, grantComponents } from "./env.js";
import { FsErrorCode } from "./errors.js";
import { ALWAYS_PROTECTED, type FsOptions, resolveFsOptions } from "./options.js";
import { startsWith } from "./paths.js";
import { createLocalFs } from "./port/local.js";
import type { FsPort } from "./port/types.js";
import type { ReviewStore } from "./review/review-store.js";
import { lazyRoot, openedRoot, type RootSet } from "./roots.js";
import type { ScratchRoot } from "./scratch.js";
import { editTool } from "./tools/edit.js";
import { globTool } from "./tools/glob.js";
import { listTool } from "./tools/list.js";
import { readTool } from "./tools/read.js";
import { searchTool } from "./tools/search.js";
import { writeTool } from "./tools/write.js";

export interface FsToolsConfig {
  /** Absolute directory; opened and canonicalized here, at admission. */
  readonly workspace: string;
  /** The session's scratch directory, a second root addressed by absolute path. */
  readonly scratch?: ScratchRoot | undefined;
  /** The deployment's `[options.fs]`; defaults fill what is missing. */
  readonly options?: FsOptions | undefined;
  /** The filesystem; the local disk by default, {@link createMemoryFs} for a virtual sandbox. */
  readonly io?: FsPort | undefined;
  /** Where workspace changes keep their previous bytes; without one, changes are not reversible. */
  readonly reviews?: ReviewStore | undefined;
}

/** Descriptors of roots are closed once no tool of their set can be reached any more. */
const closer = new FinalizationRegistry<{ io: FsPort; handles: number[] }>(({ io, handles }) => {
  for (const handle of handles) io.close(handle).catch(() => undefined);
});

/**
 * The six fs tools over one workspace: fs.read, fs.list, fs.search, fs.glob, fs.write, fs.edit.
 * Throws {@link PabloError} when the workspace cannot be opened or the options are invalid: a host
 * configuration fault, not something a model did.
 */
export async function createFsTools(config: FsToolsConfig): Promise<AnyToolDefinition[]> {
  const options = resolveFsOptions(config.options);
  const io = config.io ?? createLocalFs();
  if (!config.workspace.startsWith("/")) {
    throw new PabloError(
      FsErrorCode.INVALID_WORKSPACE,
      `the workspace must be an absolute path, got ${config.workspace}`,
    );
  }
  let opened: { handle: number; canonical: string };
  try {
    opened = await io.openRoot(config.workspace);
  } catch (error) {
    throw new PabloError(
      FsErrorCode.INVALID_WORKSPACE,
      `cannot open the workspace ${config.workspace}: ${messageOf(error)}`,
    );
  }
  const handles = [opened.handle];
  const workspace = openedRoot("workspace", opened.canonical, opened.handle, resolvePath(config.workspace));
  const scratch = config.scratch
    ? await scratchRoot(io, config.scratch, workspace.components, handles)
    : undefined;
  const roots: RootSet = {
    io,
    workspace,
    scratch,
    external: lazyRoot(io, "external", "/", undefined, (h) => handles.push(h)),
    outsidePaths: options.outside_paths,
  };
  const env: FsEnv = {
    io,
    options,
    roots,
    reviews: config.reviews,
    protectedNames: new Set([...ALWAYS_PROTECTED, ...options.protected].map(foldName)),
    grants: options.protected_grants.map((g) => ({
      id: g.id,
      components: grantComponents(opened.canonical, g.path),
    })),
    declared: new Map(),
  };
  closer.register(env, { io, handles });
  return [readTool(env), listTool(env), searchTool(env), globTool(env), writeTool(env), editTool(env)];
}

async function scratchRoot(
  io: FsPort,
  scratch: ScratchRoot,
  workspace: readonly string[],
  handles: number[],
) {
  const canonical = await io.canonicalize(scratch.path);
  const root = lazyRoot(io, "scratch", canonical, scratch.path, (h) => handles.push(h));
  if (startsWith(root.components, workspace) || startsWith(workspace, root.components)) {
    throw new PabloError(
      FsErrorCode.INVALID_SCRATCH,
      `the scratch directory ${canonical} must lie outside the workspace`,
    );
  }
  return root;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
