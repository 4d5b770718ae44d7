import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { onTestFinished } from "vitest";

export interface TestTree {
  /** Canonical workspace root. */
  readonly workspace: string;
  /** A scratch directory outside the workspace (not yet created). */
  readonly scratch: string;
  /** A directory outside the workspace, for link targets that must never be served. */
  readonly outside: string;
  write(path: string, content: string | Uint8Array): string;
  link(path: string, target: string): void;
}

/** A real temporary tree (workspace, scratch, outside), removed when the test finishes. */
export function useTree(): TestTree {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pablo-browser-test-")));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const workspace = join(base, "workspace");
  const outside = join(base, "outside");
  mkdirSync(workspace);
  mkdirSync(outside);
  const under = (path: string): string => (path.startsWith("/") ? path : join(workspace, path));
  return {
    workspace,
    scratch: join(base, "scratch", "session-1"),
    outside,
    write(path, content) {
      const full = under(path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
      return full;
    },
    link(path, target) {
      const full = under(path);
      mkdirSync(dirname(full), { recursive: true });
      symlinkSync(target, full);
    },
  };
}

/** A valid 2x3 red PNG, so `naturalWidth` proves the image really loaded. */
export const TINY_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAIAAAA2iEnWAAAAEElEQVR4nGP4z8AARAwoFABE0AX7pM/egAAAAABJRU5ErkJggg==",
  "base64",
);

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
