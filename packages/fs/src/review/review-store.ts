import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { isAbsolute, join } from "node:path";
import { ErrorCode, type ToolErrorInfo } from "@pablo/kernel";
import { snapshot } from "../content.js";
import { FsErrorCode } from "../errors.js";
import { install } from "../install.js";
import { componentsOf } from "../paths.js";
import { createLocalFs } from "../port/local.js";
import type { FsPort } from "../port/types.js";
import { resolve } from "../resolve.js";
import { lazyRoot, type RootSet } from "../roots.js";
import { Yielder } from "../yielder.js";
import type { ReviewChange } from "./review-change.js";

/** What the store keeps beside each change: enough to check and undo it. */
export interface ReviewEntry {
  readonly change: ReviewChange;
  /** Canonical absolute path of the changed file. */
  readonly target: string;
  readonly beforeRevision: string | null;
  readonly afterRevision: string;
  readonly mode: number | null;
  readonly createdAt: string;
}

/** Previous bytes captured before a change is installed; committed after it, discarded if it fails. */
export interface StagedSnapshot {
  readonly snapshotId: string;
  /** False when nothing could be captured (too large): the change will not be reversible. */
  readonly captured: boolean;
  commit(entry: Omit<ReviewEntry, "createdAt">): void;
  discard(): void;
}

export type RollbackResult =
  | { readonly ok: true; readonly change: ReviewChange; readonly action: "restored" | "removed" }
  | { readonly ok: false; readonly error: ToolErrorInfo };

/** Error code of a rollback whose previous bytes were never captured (kept for its importers). */
export const NOT_REVERSIBLE = FsErrorCode.NOT_REVERSIBLE;

const ID = /^[0-9a-z]+-[0-9a-z]+-[0-9a-f]+$/;
let sequence = 0;

/**
 * One session's review snapshots, in a directory outside the workspace (for example
 * `<state>/reviews/<sessionId>`): a JSON record per change and the previous bytes beside it.
 * Rollback is a host operation: it restores the previous bytes, or removes a file the change
 * created, only while the file still hashes to what the change wrote.
 */
export class ReviewStore {
  readonly dir: string;
  readonly #io: FsPort;

  constructor(dir: string, options: { io?: FsPort } = {}) {
    if (!isAbsolute(dir)) throw new Error(`the review store needs an absolute directory, got ${dir}`);
    this.dir = dir;
    this.#io = options.io ?? createLocalFs();
  }

  /**
   * Captures the previous bytes before the change is installed: null when the file is being
   * created, undefined when it existed but was too large to capture (the change is then not reversible).
   */
  stage(before: Uint8Array | null | undefined): StagedSnapshot {
    const snapshotId = `${Date.now().toString(36)}-${(sequence++).toString(36).padStart(4, "0")}-${randomBytes(4).toString("hex")}`;
    const captured = before !== undefined;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const bytesPath = join(this.dir, `${snapshotId}.before`);
    if (before) writeDurably(bytesPath, before, "wx");
    return {
      snapshotId,
      captured,
      commit: (entry) => {
        const record: ReviewEntry = { ...entry, createdAt: new Date().toISOString() };
        writeAtomically(join(this.dir, `${snapshotId}.json`), JSON.stringify(record));
      },
      discard: () => rmSync(bytesPath, { force: true }),
    };
  }

  /** Every recorded change, oldest first. */
  list(): ReviewChange[] {
    return this.#entries().map((entry) => entry.change);
  }

  get(snapshotId: string): ReviewEntry | undefined {
    if (!ID.test(snapshotId)) return undefined;
    const path = join(this.dir, `${snapshotId}.json`);
    if (!existsSync(path)) return undefined;
    return JSON.parse(readFileSync(path, "utf8")) as ReviewEntry;
  }

  /**
   * Undoes one change when the file still hashes to what the change wrote; otherwise reports a
   * conflict and touches nothing. This is optimistic: a writer racing the rollback between the
   * check and the rename is not excluded.
   */
  async rollback(snapshotId: string): Promise<RollbackResult> {
    const entry = this.get(snapshotId);
    if (!entry) return refusal(ErrorCode.NOT_FOUND, `no review snapshot ${snapshotId}`);
    if (entry.change.state === "rolledBack") {
      return refusal(ErrorCode.INVALID_ARGUMENT, `${snapshotId} is already rolled back`);
    }
    if (!entry.change.reversible) {
      return refusal(
        NOT_REVERSIBLE,
        `${snapshotId} is not reversible: its previous content was not captured`,
      );
    }
    const before = entry.beforeRevision === null ? null : this.#before(snapshotId, entry.beforeRevision);
    if (before instanceof Error) return refusal(ErrorCode.TOOL_FAILED, before.message);
    const outcome = await this.#undo(entry, before);
    if (!outcome.ok) return outcome;
    const change: ReviewChange = { ...entry.change, state: "rolledBack" };
    writeAtomically(join(this.dir, `${snapshotId}.json`), JSON.stringify({ ...entry, change }));
    return { ok: true, change, action: outcome.action };
  }

  /** Deletes the store with its session. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  #entries(): ReviewEntry[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((name) => name.endsWith(".json") && ID.test(name.slice(0, -5)))
      .sort()
      .flatMap((name) => {
        try {
          return [JSON.parse(readFileSync(join(this.dir, name), "utf8")) as ReviewEntry];
        } catch {
          return [];
        }
      });
  }

  #before(snapshotId: string, revision: string): Uint8Array | Error {
    const bytes = readFileSync(join(this.dir, `${snapshotId}.before`));
    const actual = createHash("sha256").update(bytes).digest("hex");
    return actual === revision ? bytes : new Error(`the captured bytes of ${snapshotId} are damaged`);
  }

  async #undo(
    entry: ReviewEntry,
    before: Uint8Array | null,
  ): Promise<{ ok: true; action: "restored" | "removed" } | { ok: false; error: ToolErrorInfo }> {
    const io = this.#io;
    const slash = lazyRoot(io, "external", "/");
    const roots: RootSet = {
      io,
      workspace: slash,
      scratch: undefined,
      external: slash,
      outsidePaths: "permission",
    };
    const located = { root: slash, components: componentsOf(entry.target) };
    const resolved = await resolve(roots, located, "writable", { symlinks: "refuse" });
    if ("ok" in resolved) return { ok: false, error: resolved.error };
    try {
      const current = await currentRevision(io, resolved.leaf);
      if (current !== entry.afterRevision) {
        return {
          ok: false,
          error: {
            code: ErrorCode.REVISION_CONFLICT,
            message: `${entry.change.path} changed after this change was made; nothing was rolled back`,
            details: { current_revision: current, expected_revision: entry.afterRevision },
          },
        };
      }
      const dir = resolved.parent;
      const name = resolved.name as string;
      if (before === null) {
        await io.unlink(dir, name);
        return { ok: true, action: "removed" };
      }
      const installed = await install({
        io,
        dir,
        name,
        content: before,
        mode: entry.mode ?? undefined,
        how: "replace",
        beforeCommit: async () => undefined,
      });
      return installed.committed
        ? { ok: true, action: "restored" }
        : { ok: false, error: installed.failure.error };
    } finally {
      await resolved.release();
    }
  }
}

async function currentRevision(io: FsPort, leaf: { type: string; handle?: number }): Promise<string | null> {
  if (leaf.type !== "file" || leaf.handle === undefined) return null;
  return (await snapshot(io, leaf.handle, {}, new Yielder())).revision;
}

function refusal(code: string, message: string): RollbackResult {
  return { ok: false, error: { code, message } };
}

function writeDurably(path: string, bytes: Uint8Array, flag: "wx" | "w"): void {
  const fd = openSync(path, flag, 0o600);
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeDurably(temporary, Buffer.from(text, "utf8"), "wx");
    renameSync(temporary, path);
  } catch (error) {
    if (existsSync(temporary)) unlinkSync(temporary);
    throw error;
  }
}
