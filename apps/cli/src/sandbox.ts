import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createMemoryFs, type FsPort, type MemoryFs } from "@pablo/fs";
import { PabloError } from "@pablo/kernel";
import {
  containmentFor,
  type ResolvedSandboxOptions,
  resolveSandboxOptions,
  type SandboxCapability,
  type SandboxOptions,
  sandboxCapabilities,
} from "@pablo/shell";

/** What `[options.sandbox]` means for one task: which tools attach, over which filesystem. */
export interface SandboxPlan {
  readonly options: ResolvedSandboxOptions;
  /** Seed 003's capabilities of the sandbox; a tool whose capability is missing is not attached. */
  readonly capabilities: readonly SandboxCapability[];
  /** Whether shell.run is attached at all (not in a virtual sandbox: a model never sees a tool it cannot run). */
  readonly attachShell: boolean;
  /** The fs port for createFsTools: the in-memory one for `virtual`, undefined for the local disk. */
  readonly io: FsPort | undefined;
  /** The in-memory filesystem of a virtual sandbox, to print or export its changes afterwards. */
  readonly memory: MemoryFs | undefined;
  /** The workspace path the tools see (the same path, in memory, for `virtual`). */
  readonly workspace: string;
  /** The line `pablo tools --explain` prints about the containment in force. */
  readonly explain: string;
  /** What the seed put in memory: relative path to its bytes, to tell changes from it. */
  readonly seeded: ReadonlyMap<string, Uint8Array>;
}

export interface SandboxRequest {
  readonly workspace: string;
  /** `pablo run --seed DIR`: a directory copied into the virtual sandbox's workspace first. */
  readonly seed?: string;
}

/**
 * Plans the task's sandbox. `local` and `bubblewrap` keep the disk and attach shell.run with their
 * containment (a missing bubblewrap throws `SANDBOX_UNAVAILABLE` here, at admission); `virtual`
 * makes an in-memory filesystem at the workspace path, seeded from `seed` when given, and attaches
 * no shell. Throws {@link PabloError} `INVALID_OPTIONS` for a bad `[options.sandbox]` and for a
 * seed outside a virtual sandbox.
 */
export function planSandbox(options: SandboxOptions | undefined, request: SandboxRequest): SandboxPlan {
  const resolved = resolveSandboxOptions(options);
  const capabilities = sandboxCapabilities(resolved.kind);
  if (resolved.kind !== "virtual") {
    if (request.seed !== undefined) {
      throw new PabloError("INVALID_OPTIONS", '--seed needs [options.sandbox] kind = "virtual"');
    }
    const containment = containmentFor(resolved);
    return {
      options: resolved,
      capabilities,
      attachShell: true,
      io: undefined,
      memory: undefined,
      workspace: request.workspace,
      // Read when it is printed: a local containment probes for a PID namespace on first use.
      get explain() {
        return `sandbox ${resolved.kind}: ${containment.summary}`;
      },
      seeded: new Map(),
    };
  }
  const memory = createMemoryFs();
  memory.mkdirp(request.workspace);
  const seeded =
    request.seed === undefined ? new Map() : seedFromDirectory(memory, request.seed, request.workspace);
  return {
    options: resolved,
    capabilities,
    attachShell: false,
    io: memory,
    memory,
    workspace: request.workspace,
    explain: `sandbox virtual: the fs tools read and write an in-memory filesystem${request.seed ? ` seeded from ${request.seed}` : ""}; shell.run is not attached; the disk is never written`,
    seeded,
  };
}

/**
 * Copies the regular files and directories under `from` into `memory` at `to`. Links and special
 * files are skipped: the virtual sandbox must not learn anything through them.
 */
export function seedFromDirectory(memory: MemoryFs, from: string, to: string): Map<string, Uint8Array> {
  const seeded = new Map<string, Uint8Array>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const info = lstatSync(path);
      const rel = relative(from, path);
      if (info.isDirectory()) {
        memory.mkdirp(join(to, rel));
        walk(path);
      } else if (info.isFile()) {
        const bytes = readFileSync(path);
        memory.writeFile(join(to, rel), bytes, info.mode & 0o777);
        seeded.set(rel, new Uint8Array(bytes));
      }
    }
  };
  walk(from);
  return seeded;
}

/** One file that differs from the seed at the end of a virtual task. */
export interface SandboxChange {
  readonly path: string;
  readonly kind: "added" | "modified" | "deleted";
}

/** What the task changed in the virtual workspace, relative to the seed, in path order. */
export function sandboxChanges(plan: SandboxPlan): SandboxChange[] {
  if (!plan.memory) return [];
  const now = memoryFiles(plan.memory, plan.workspace);
  const changes: SandboxChange[] = [];
  for (const [path, bytes] of now) {
    const before = plan.seeded.get(path);
    if (!before) changes.push({ path, kind: "added" });
    else if (!Buffer.from(before).equals(Buffer.from(bytes))) changes.push({ path, kind: "modified" });
  }
  for (const path of plan.seeded.keys()) if (!now.has(path)) changes.push({ path, kind: "deleted" });
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Writes the added and modified files of a virtual task under `target` (a directory the user
 * named, created when missing) and returns what was written. Deleted files are only reported.
 */
export function exportChanges(plan: SandboxPlan, target: string): SandboxChange[] {
  const changes = sandboxChanges(plan);
  for (const change of changes) {
    if (change.kind === "deleted" || !plan.memory) continue;
    const bytes = plan.memory.readFile(join(plan.workspace, change.path));
    if (!bytes) continue;
    const out = join(target, change.path);
    mkdirSync(join(out, ".."), { recursive: true });
    writeFileSync(out, bytes);
  }
  return changes;
}

function memoryFiles(memory: MemoryFs, root: string): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const walk = (dir: string) => {
    for (const name of memory.names(dir)) {
      const path = join(dir, name);
      const bytes = memory.readFile(path);
      if (bytes) files.set(relative(root, path), bytes);
      else {
        // Links and special files have neither bytes nor names: they are not content to export.
        try {
          walk(path);
        } catch {}
      }
    }
  };
  walk(root);
  return files;
}
