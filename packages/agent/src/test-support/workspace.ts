import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";

/** A real temporary workspace (canonical path), removed when the test finishes. */
export function useWorkspace(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "pablo-agent-")));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
