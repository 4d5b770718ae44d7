import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import {
  type CatalogDiagnostic,
  checkActions,
  generateSigningKey,
  type LoadedAction,
  loadCatalogs,
  signCatalogText,
  trustedKey,
} from "@pablo/actions";
import { Exit } from "../exit-codes.js";
import { type Io, printJson, table } from "../output.js";

/** Where `verify`, `list` and `check` read actions from: catalog files and trusted public keys. */
export interface ActionSources {
  readonly catalogs: readonly string[];
  readonly trusted: readonly string[];
  readonly json: boolean;
}

/**
 * `pablo actions keygen PREFIX`: a new Ed25519 key pair, `PREFIX.key` (PKCS#8, mode 0600, never
 * overwritten) and `PREFIX.pub` (SPKI, what a deployment lists under `trusted_keys`).
 */
export function actionsKeygenCommand(io: Io, options: { prefix: string; json: boolean }): number {
  const base = resolve(io.cwd, options.prefix);
  const key = generateSigningKey();
  for (const path of [`${base}.key`, `${base}.pub`]) {
    if (existsSync(path)) {
      io.stderr(`pablo: ${path} exists; keygen never overwrites a key [KEY_EXISTS]\n`);
      return Exit.USAGE;
    }
  }
  writeFileSync(`${base}.key`, key.privateKeyPem, { mode: 0o600, flag: "wx" });
  writeFileSync(`${base}.pub`, key.publicKeyPem, { mode: 0o644, flag: "wx" });
  if (options.json) printJson(io, { keyId: key.keyId, privateKey: `${base}.key`, publicKey: `${base}.pub` });
  else
    io.stdout(
      `key ${key.keyId}\nprivate key: ${base}.key (keep it off the hosts)\npublic key:  ${base}.pub\n`,
    );
  return Exit.OK;
}

/**
 * `pablo actions sign CATALOG --key FILE`: writes each script's digest and each action's signature
 * into the catalog, replacing the file atomically.
 */
export function actionsSignCommand(io: Io, options: { catalog: string; key: string; json: boolean }): number {
  const file = resolve(io.cwd, options.catalog);
  let signed: string;
  try {
    signed = signCatalogText(
      readFileSync(file, "utf8"),
      dirname(file),
      readFileSync(resolve(io.cwd, options.key), "utf8"),
    );
  } catch (error) {
    io.stderr(
      `pablo: cannot sign ${options.catalog}: ${error instanceof Error ? error.message : String(error)} [SIGN_FAILED]\n`,
    );
    return Exit.FAILED;
  }
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temporary, signed, { flag: "wx" });
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
  if (options.json) printJson(io, { signed: file });
  else io.stdout(`signed ${options.catalog}\n`);
  return Exit.OK;
}

/** `pablo actions verify`: exit 0 only when every action verifies and loads, 1 otherwise. */
export function actionsVerifyCommand(io: Io, sources: ActionSources): number {
  const loaded = load(io, sources);
  if (!loaded) return Exit.USAGE;
  const errors = loaded.diagnostics.filter((d) => d.severity === "error");
  if (sources.json)
    printJson(io, { verified: loaded.actions.map((a) => a.name), diagnostics: loaded.diagnostics });
  else {
    for (const action of loaded.actions) io.stdout(`ok       ${action.name} (key ${action.keyId})\n`);
    printDiagnostics(io, loaded.diagnostics);
  }
  return errors.length === 0 ? Exit.OK : Exit.FAILED;
}

/** `pablo actions list`: the actions that load, with their tool names, risk and kind. */
export function actionsListCommand(io: Io, sources: ActionSources): number {
  const loaded = load(io, sources);
  if (!loaded) return Exit.USAGE;
  if (sources.json) {
    printJson(io, {
      actions: loaded.actions.map((a) => ({
        name: a.name,
        tool: `action.${a.name}`,
        risk: a.spec.risk,
        kind: kindOf(a),
        filters: a.filters,
      })),
      diagnostics: loaded.diagnostics,
    });
  } else {
    const rows = loaded.actions.map((a) => [
      `action.${a.name}`,
      a.spec.risk,
      kindOf(a),
      a.filters.join(",") || "-",
    ]);
    io.stdout(`${table([["TOOL", "RISK", "KIND", "FILTERS"], ...rows])}\n`);
    printDiagnostics(io, loaded.diagnostics);
  }
  return Exit.OK;
}

/**
 * `pablo actions check`: what each loaded action lacks on this host (an executable and its
 * fallbacks, an interpreter, a builtin's server); exit 1 when anything is unsupported.
 */
export async function actionsCheckCommand(io: Io, sources: ActionSources): Promise<number> {
  const loaded = load(io, sources);
  if (!loaded) return Exit.USAGE;
  const support = await checkActions(loaded.actions);
  if (sources.json) printJson(io, { actions: support, diagnostics: loaded.diagnostics });
  else {
    for (const entry of support) {
      io.stdout(`${entry.supported ? "supported  " : "unsupported"} ${entry.action}\n`);
      for (const line of entry.unsupported) io.stdout(`  ${line}\n`);
      for (const line of entry.warnings) io.stdout(`  warning: ${line}\n`);
    }
    printDiagnostics(io, loaded.diagnostics);
  }
  const refused = loaded.diagnostics.some((d) => d.severity === "error");
  return support.every((s) => s.supported) && !refused ? Exit.OK : Exit.FAILED;
}

function load(
  io: Io,
  sources: ActionSources,
): { actions: LoadedAction[]; diagnostics: CatalogDiagnostic[] } | undefined {
  if (sources.catalogs.length === 0 || sources.trusted.length === 0) {
    io.stderr(
      "pablo: name catalogs and --trusted keys, or configure [options.actions] [ACTIONS_NOT_CONFIGURED]\n",
    );
    return undefined;
  }
  let keys: ReturnType<typeof trustedKey>[];
  try {
    keys = sources.trusted.map((file) => trustedKey(readFileSync(resolve(io.cwd, file), "utf8")));
  } catch (error) {
    io.stderr(
      `pablo: a trusted key is unusable: ${error instanceof Error ? error.message : String(error)} [INVALID_KEY]\n`,
    );
    return undefined;
  }
  return loadCatalogs(
    sources.catalogs.map((file) => resolve(io.cwd, file)),
    keys,
  );
}

function printDiagnostics(io: Io, diagnostics: readonly CatalogDiagnostic[]): void {
  for (const d of diagnostics) {
    const where = d.action ? `${d.file}: ${d.action}` : d.file;
    io.stdout(`${d.severity === "error" ? "refused " : "warning "} ${where}: ${d.message} [${d.code}]\n`);
  }
}

function kindOf(action: LoadedAction): string {
  if (action.builtin) return `builtin ${action.builtin.handler.name}`;
  if (action.script) return "script";
  return action.steps.length > 1 || action.spec.steps ? `steps (${action.steps.length})` : "exec";
}
