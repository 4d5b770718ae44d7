import { resolve } from "node:path";
import { type AuditStoreKind, defaultStorePath, openAuditStore } from "@pablo/audit";
import { type AuditOptions, loadDeploymentFile } from "@pablo/config";
import type { AuditStore } from "@pablo/kernel";
import type { GlobalOptions } from "../args.js";
import { ConfigFailure, resolveBindings } from "../distribution.js";
import type { Io } from "../output.js";
import { distributionSections } from "../providers.js";

/** Which store an audit command reads: `--file`, else `[options.audit]`, else the default. */
export interface AuditStoreChoice {
  readonly kind: AuditStoreKind;
  readonly path: string;
}

/**
 * The store a deployment writes to: `[options.audit] store` and `path` of `--config`, else the
 * JSONL file in the state directory. `--file F` names the file directly; a name ending in
 * `.sqlite` or `.db` is read as SQLite.
 */
export function auditStoreChoice(global: GlobalOptions, io: Io, file: string | undefined): AuditStoreChoice {
  if (file) {
    const path = resolve(io.cwd, file);
    return { kind: /\.(sqlite3?|db)$/.test(path) ? "sqlite" : "jsonl", path };
  }
  const options = configuredAuditOptions(global, io);
  const kind = options?.store ?? "jsonl";
  return { kind, path: options?.path ?? defaultStorePath(kind, io.env) };
}

/** Opens the chosen store for reading; the caller closes it. */
export function openChosenStore(choice: AuditStoreChoice): AuditStore {
  return openAuditStore({ kind: choice.kind, path: choice.path });
}

function configuredAuditOptions(global: GlobalOptions, io: Io): AuditOptions | undefined {
  if (!global.config) return undefined;
  const { bindings } = resolveBindings(global, io.cwd);
  const loaded = loadDeploymentFile(resolve(io.cwd, global.config), {
    sections: distributionSections(),
    bindings,
  });
  if (!loaded.ok) throw new ConfigFailure(loaded.errors);
  return loaded.value.options["audit"] as AuditOptions | undefined;
}
