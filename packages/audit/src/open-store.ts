import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { AuditErrorCode, type AuditStore, type AuditStoreOptions, PabloError } from "@pablo/kernel";
import { JsonlAuditStore, stateDirectory } from "@pablo/kernel/node";
import { SqliteAuditStore } from "./sqlite-store.js";

/** Which audit store a deployment chose (`[options.audit] store`). */
export type AuditStoreKind = "jsonl" | "sqlite";

export interface OpenAuditStoreOptions extends AuditStoreOptions {
  readonly kind?: AuditStoreKind;
  /** The store's file; defaults to `<state>/audit.jsonl` or `<state>/audit.sqlite`. */
  readonly path?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * An audit store with `close()`, the JSONL file or SQLite, chosen by `kind` (JSONL by default).
 * Throws {@link PabloError} `AUDIT_WRITE_FAILED` when the path is something no record can be
 * appended to (a directory, a device such as `/dev/full`, a path through a file): a host that
 * went on would run every call unrecorded.
 */
export function openAuditStore(options: OpenAuditStoreOptions = {}): AuditStore & { readonly path: string } {
  const kind = options.kind ?? "jsonl";
  const path = options.path ?? defaultStorePath(kind, options.env);
  refuseUnwritableLog(path);
  const storeOptions: AuditStoreOptions = {
    ...(options.accesses ? { accesses: options.accesses } : {}),
    ...(options.durable ? { durable: options.durable } : {}),
  };
  return kind === "sqlite"
    ? new SqliteAuditStore(path, storeOptions)
    : new JsonlAuditStore(path, storeOptions);
}

/** `<state>/audit.jsonl` or `<state>/audit.sqlite`, never inside a workspace. */
export function defaultStorePath(kind: AuditStoreKind, env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDirectory(env), kind === "sqlite" ? "audit.sqlite" : "audit.jsonl");
}

function refuseUnwritableLog(path: string): void {
  if (path === ":memory:") return;
  const found = kindOf(path);
  if (found === "file" || found === "missing") {
    const parent = nearestExisting(dirname(path));
    if (parent === undefined || parent.kind === "directory") return;
    throw unwritable(path, `${parent.path} is ${DESCRIBED[parent.kind]}, not a directory`);
  }
  throw unwritable(path, `it is ${DESCRIBED[found]}, not a regular file`);
}

type PathKind = "file" | "directory" | "device" | "other" | "missing";

function kindOf(path: string): PathKind {
  try {
    const stat = statSync(path);
    if (stat.isFile()) return "file";
    if (stat.isDirectory()) return "directory";
    return stat.isCharacterDevice() || stat.isBlockDevice() ? "device" : "other";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "missing" : "other";
  }
}

/** The nearest ancestor that exists (a store makes the missing ones), or undefined at the root. */
function nearestExisting(path: string): { path: string; kind: PathKind } | undefined {
  for (let at = path; ; at = dirname(at)) {
    const kind = kindOf(at);
    if (kind !== "missing") return { path: at, kind };
    if (dirname(at) === at) return undefined;
  }
}

const DESCRIBED: Readonly<Record<PathKind, string>> = {
  directory: "a directory",
  device: "a device",
  file: "a file",
  other: "something that cannot be read as a file or directory",
  missing: "missing",
};

function unwritable(path: string, why: string): PabloError {
  return new PabloError(
    AuditErrorCode.AUDIT_WRITE_FAILED,
    `cannot keep the audit log at ${path}: ${why}; set [options.audit] path to a file Pablo can append to`,
    { path },
  );
}
