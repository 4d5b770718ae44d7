import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  type AuthorityLayer,
  createCatalog,
  createKernel,
  defineLayer,
  MemoryAuditSink,
  type PermissionBroker,
  type PermissionMode,
  type Session,
  type ToolDefinition,
  type ToolResult,
} from "@pablo/kernel";
import { onTestFinished } from "vitest";
import { createFsTools, type FsToolsConfig } from "../create-fs-tools.js";

/** A real temporary directory (canonical path), removed when the test finishes. */
export function useTempDir(prefix = "pablo-fs-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes files (creating parents) under `root` from a `{ relativePath: content }` map. */
export function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

export interface Harness {
  readonly session: Session;
  readonly tools: ToolDefinition[];
  readonly audit: MemoryAuditSink;
  call(tool: string, args: unknown, signal?: AbortSignal): Promise<ToolResult>;
}

export interface HarnessOptions {
  readonly mode?: PermissionMode;
  readonly layers?: AuthorityLayer[];
  readonly broker?: PermissionBroker;
}

/** The fs tools behind a real kernel session: every call runs the whole dispatch pipeline. */
export async function fsHarness(config: FsToolsConfig, options: HarnessOptions = {}): Promise<Harness> {
  const tools = await createFsTools(config);
  const audit = new MemoryAuditSink();
  const kernel = createKernel({ audit, ...(options.broker ? { broker: options.broker } : {}) });
  const session = kernel.openSession({
    catalog: createCatalog(tools),
    permission: { mode: options.mode ?? "auto" },
    layers: options.layers ?? [defineLayer({ id: "test" })],
  });
  return {
    session,
    tools,
    audit,
    call: async (tool, args, signal) =>
      (await session.call({ tool, args, ...(signal ? { signal } : {}) })).result,
  };
}

/** The `data` of a successful result, failing the test otherwise. */
export function data<T = Record<string, unknown>>(result: ToolResult): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.data as T;
}

/** The error code of a failed result, or "ok". */
export function code(result: ToolResult): string {
  return result.ok ? "ok" : String(result.error.code);
}
