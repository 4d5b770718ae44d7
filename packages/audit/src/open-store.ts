import { join } from "node:path";
import type { AuditStore, AuditStoreOptions } from "@pablo/kernel";
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

/** An audit store with `close()`, the JSONL file or SQLite, chosen by `kind` (JSONL by default). */
export function openAuditStore(options: OpenAuditStoreOptions = {}): AuditStore & { readonly path: string } {
  const kind = options.kind ?? "jsonl";
  const path = options.path ?? defaultStorePath(kind, options.env);
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
