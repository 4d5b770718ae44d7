import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { onAbortOf, type ToolContext, type ToolResult } from "@pablo/kernel";
import { onTestFinished } from "vitest";
import { actionTool } from "../action-tool.js";
import { type LoadedCatalog, loadCatalog } from "../load-catalog.js";
import type { LoadedAction } from "../loaded-action.js";
import { signCatalogText } from "../sign-catalog.js";
import { generateSigningKey, trustedKey } from "../signing.js";

/** One generated key for the whole test file: key generation is cheap but not free. */
const KEY = generateSigningKey();
export const TRUSTED = [trustedKey(KEY.publicKeyPem)];
export const SIGNING_KEY = KEY;

/** A temporary catalog directory, removed when the test finishes. */
export function useCatalogDir(): {
  dir: string;
  /** Writes a file relative to the directory and returns its path. */
  file(name: string, content: string | Buffer): string;
  /** Writes and signs a catalog (with `privateKeyPem`, the test key by default). */
  signed(yaml: string, privateKeyPem?: string, name?: string): string;
} {
  const dir = mkdtempSync(join(tmpdir(), "pablo-actions-test-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  return {
    dir,
    file,
    signed: (yaml, privateKeyPem = KEY.privateKeyPem, name = "catalog.yaml") => {
      const path = join(dir, name);
      return file(name, signCatalogText(yaml, dirname(path), privateKeyPem));
    },
  };
}

/** Signs and loads a catalog, failing the test when it has error diagnostics. */
export function loadSigned(yaml: string): { catalog: LoadedCatalog; action(name: string): LoadedAction } {
  const dir = useCatalogDir();
  const catalog = loadCatalog(dir.signed(yaml), TRUSTED);
  const errors = catalog.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) throw new Error(`catalog did not load: ${JSON.stringify(errors)}`);
  return {
    catalog,
    action: (name) => {
      const found = catalog.actions.find((a) => a.name === name);
      if (!found) throw new Error(`no action ${name}`);
      return found;
    },
  };
}

/** A tool context for direct calls: no kernel, a fresh signal and a generous deadline. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    sessionId: "s",
    turnId: "t",
    promptId: "p",
    callId: "c",
    mode: "agent",
    signal,
    onAbort: onAbortOf(signal),
    deadline: Date.now() + 60_000,
    requester: undefined,
    progress: () => undefined,
    authorize: () => ({ verdict: "allow", layer: "test", rule: "test" }) as never,
    state: <T>(_key: string, init: () => T) => init(),
    narrow: () => undefined,
  };
}

/** Runs an action's tool the way the kernel would after validation: accesses, then execute. */
export async function callAction(
  action: LoadedAction,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<ToolResult> {
  const tool = actionTool(action);
  const ctx = toolContext(signal);
  const planned = await tool.accesses?.(args, ctx);
  if (planned && !Array.isArray(planned)) return planned as ToolResult;
  return tool.execute(args, ctx);
}
