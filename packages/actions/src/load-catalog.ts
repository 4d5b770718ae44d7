import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { compileValidator } from "@pablo/kernel";
import { createRedactor, patternProblem } from "@pablo/shell/redact";
import { parseDocument } from "yaml";
import { templateNames, templateProblem } from "./arg-template.js";
import { BUILTINS } from "./builtins/registry.js";
import { ActionSpec, type ArgTemplate } from "./catalog-schema.js";
import type { ActionsErrorCode } from "./errors.js";
import { ACTION_LIMITS, type ActionScript, type ActionStep, type LoadedAction } from "./loaded-action.js";
import { paramSpecProblem } from "./params.js";
import { checkProgram } from "./program-check.js";
import { type TrustedKey, verifyAction } from "./signing.js";
import { parseDuration, parseSize } from "./units.js";

/** One finding about a catalog: an action refused (`error`) or loaded with a warning. */
export interface CatalogDiagnostic {
  readonly file: string;
  /** The action's name, or `#N` (its position) when it has none. */
  readonly action?: string;
  readonly code: ActionsErrorCode;
  readonly severity: "error" | "warning";
  readonly message: string;
}

export interface LoadedCatalog {
  readonly actions: LoadedAction[];
  readonly diagnostics: CatalogDiagnostic[];
}

/** Largest catalog file and script read. */
export const MAX_CATALOG_BYTES = 1024 * 1024;
/** YAML aliases a catalog may use: a few for sharing, never an alias bomb. */
export const MAX_YAML_ALIASES = 64;

const validateSpec = compileValidator(ActionSpec);

/**
 * Loads catalog files: every action whose signature verifies against a trusted key and that
 * satisfies the format's rules, and a diagnostic naming each action refused (unsigned, tampered,
 * wrongly keyed, invalid) or loaded with a warning. Never throws on catalog content.
 */
export function loadCatalogs(files: readonly string[], keys: readonly TrustedKey[]): LoadedCatalog {
  const out: LoadedCatalog = { actions: [], diagnostics: [] };
  const names = new Set<string>();
  for (const file of files) {
    const loaded = loadCatalog(file, keys);
    out.diagnostics.push(...loaded.diagnostics);
    for (const action of loaded.actions) {
      if (names.has(action.name)) {
        out.diagnostics.push(
          error(file, action.name, "ACTION_DUPLICATE", `action ${action.name} is defined twice`),
        );
        continue;
      }
      names.add(action.name);
      out.actions.push(action);
    }
  }
  return out;
}

/** Loads one catalog file; see {@link loadCatalogs}. */
export function loadCatalog(file: string, keys: readonly TrustedKey[]): LoadedCatalog {
  const raw = readCatalogActions(file);
  if (!raw.ok)
    return { actions: [], diagnostics: [error(file, undefined, "CATALOG_UNREADABLE", raw.message)] };
  const actions: LoadedAction[] = [];
  const diagnostics: CatalogDiagnostic[] = [];
  raw.actions.forEach((value, index) => {
    const label = actionLabel(value, index);
    const result = loadAction(file, value, keys);
    if (result.ok) {
      actions.push(result.action);
      for (const warning of result.action.warnings) {
        diagnostics.push({
          file,
          action: label,
          code: "INTERPRETER_ALLOWED",
          severity: "warning",
          message: warning,
        });
      }
    } else diagnostics.push(error(file, label, result.code, result.message));
  });
  return { actions, diagnostics };
}

/** The raw actions of a catalog file: a mapping with `actions: [...]`, or one action mapping. */
export function readCatalogActions(
  file: string,
): { ok: true; actions: unknown[] } | { ok: false; message: string } {
  let text: string;
  try {
    if (statSync(file).size > MAX_CATALOG_BYTES)
      return { ok: false, message: `${file} is larger than 1 MiB` };
    text = readFileSync(file, "utf8");
  } catch (e) {
    return { ok: false, message: `cannot read ${file}: ${e instanceof Error ? e.message : String(e)}` };
  }
  const doc = parseDocument(text, { uniqueKeys: true, schema: "core" });
  if (doc.errors.length > 0)
    return { ok: false, message: `${file}: ${doc.errors[0]?.message ?? "invalid YAML"}` };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    return { ok: false, message: `${file}: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const map = value as Record<string, unknown>;
    if (Array.isArray(map["actions"]) && Object.keys(map).length === 1)
      return { ok: true, actions: map["actions"] };
    if ("name" in map) return { ok: true, actions: [map] };
  }
  return {
    ok: false,
    message: `${file}: a catalog is a mapping with an \`actions\` list, or a single action`,
  };
}

type ActionLoad =
  | { readonly ok: true; readonly action: LoadedAction }
  | { readonly ok: false; readonly code: ActionsErrorCode; readonly message: string };

function loadAction(file: string, value: unknown, keys: readonly TrustedKey[]): ActionLoad {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return refuse("ACTION_INVALID", "an action must be a mapping");
  }
  // The signature is checked before anything else reads the action's content.
  const signature = verifyAction(value as Record<string, unknown>, keys);
  if (!signature.ok) return signatureRefusal(signature.reason);
  if (!validateSpec.check(value)) {
    const issue = validateSpec.issues(value, 1)[0];
    return refuse("ACTION_INVALID", `does not match the action schema: ${issue?.path} ${issue?.message}`);
  }
  const spec = value as ActionSpec;
  const problem = formatProblem(spec);
  if (problem) return refuse("ACTION_INVALID", problem);
  let script: ActionScript | undefined;
  if (spec.script) {
    const read = readScript(dirname(resolve(file)), spec.script);
    if (!read.ok) return refuse(read.code, read.message);
    script = read.script;
  }
  let builtin: LoadedAction["builtin"];
  if (spec.builtin) {
    const handler = BUILTINS[spec.builtin];
    if (!handler) return refuse("ACTION_INVALID", `unknown builtin ${spec.builtin}`);
    const config = handler.resolveConfig(spec.builtin_config ?? {});
    if (!config.ok) return refuse("ACTION_INVALID", `builtin_config: ${config.problem}`);
    builtin = { handler, config: config.config };
  }
  const steps = stepsOf(spec);
  const warnings: string[] = [];
  for (const step of steps) {
    const checked = loadTimeProgramCheck(step, spec);
    if (!checked.ok) return refuse("INTERPRETER_REFUSED", `step ${step.name}: ${checked.reason}`);
    warnings.push(...checked.warnings.map((w) => `step ${step.name}: ${w}`));
  }
  if (spec.allow_interpreter) {
    warnings.unshift(
      "allow_interpreter: true permits running the signed interpreter program; review it as such",
    );
  }
  const limits = resolveLimits(spec);
  if (!limits.ok) return refuse("ACTION_INVALID", limits.problem);
  return {
    ok: true,
    action: {
      name: spec.name,
      spec,
      source: file,
      keyId: signature.keyId,
      steps,
      ...(script ? { script } : {}),
      ...(builtin ? { builtin } : {}),
      onError: spec.on_error ?? "stop",
      ...limits.limits,
      filters: [...new Set(spec.filters ?? [])],
      redact: createRedactor({ builtin: spec.redact?.builtin ?? [], patterns: spec.redact?.patterns ?? [] }),
      warnings,
    },
  };
}

/** The format's cross-field rules, which a schema cannot say. */
function formatProblem(spec: ActionSpec): string | undefined {
  const kinds = (["exec", "steps", "script", "builtin"] as const).filter((k) => spec[k] !== undefined);
  if (kinds.length !== 1) return "an action has exactly one of exec, steps, script and builtin";
  if (spec.on_error !== undefined && !spec.steps) return "on_error applies to steps only";
  if (spec.exec_fallbacks !== undefined && !spec.exec)
    return "exec_fallbacks applies to exec only (steps have their own)";
  if (spec.builtin_config !== undefined && !spec.builtin) return "builtin_config applies to builtin only";
  if (spec.builtin && spec.params && Object.keys(spec.params).length > 0) {
    return "a builtin action takes the builtin's own parameters; declare none";
  }
  const params = spec.params ?? {};
  for (const [name, param] of Object.entries(params)) {
    const problem = paramSpecProblem(name, param);
    if (problem) return problem;
  }
  const stepNames = new Set<string>();
  for (const step of spec.steps ?? []) {
    if (stepNames.has(step.name)) return `step ${step.name} is defined twice`;
    stepNames.add(step.name);
  }
  const templates: ArgTemplate[][] = [
    ...(spec.exec ? [spec.exec] : []),
    ...(spec.steps ?? []).map((s) => s.exec),
    ...(spec.script ? [spec.script.args ?? []] : []),
  ];
  for (const template of templates) {
    const problem = templateProblem(template, params);
    if (problem) return problem;
  }
  const used = new Set(templates.flatMap((t) => templateNames(t)));
  for (const name of Object.keys(params))
    if (!used.has(name)) return `parameter ${name} is used by no argument`;
  const paths = [
    ...(spec.exec_fallbacks ?? []),
    ...(spec.steps ?? []).flatMap((s) => s.exec_fallbacks ?? []),
    ...(spec.script ? [spec.script.interpreter] : []),
  ];
  for (const path of paths) if (!isCanonicalAbsolute(path)) return `${path} is not a canonical absolute path`;
  for (const template of [...(spec.exec ? [spec.exec] : []), ...(spec.steps ?? []).map((s) => s.exec)]) {
    const program = template[0];
    if (typeof program !== "string" || !isCanonicalAbsolute(program)) {
      return "an exec array starts with a literal canonical absolute executable path";
    }
  }
  for (const pattern of spec.redact?.patterns ?? []) {
    const problem = patternProblem(pattern);
    if (problem) return `redact: ${problem}`;
  }
  return undefined;
}

function stepsOf(spec: ActionSpec): ActionStep[] {
  if (spec.exec) return [{ name: "main", exec: spec.exec, fallbacks: spec.exec_fallbacks ?? [] }];
  if (spec.steps)
    return spec.steps.map((s) => ({ name: s.name, exec: s.exec, fallbacks: s.exec_fallbacks ?? [] }));
  return [];
}

/**
 * The interpreter and wrapper check on the step's literal arguments, with each placeholder left in
 * place: it is refused as a wrapped command, and it is checked again with real values at run time.
 * A step whose executable and fallbacks are all missing loads; `checkActions` reports it.
 */
function loadTimeProgramCheck(step: ActionStep, spec: ActionSpec) {
  const argv = step.exec.flatMap((t) => (typeof t === "string" ? [t] : t.optional));
  const fromParams = new Set<number>();
  argv.forEach((arg, i) => {
    if (/^\{[a-z][a-z0-9_]*\}$/.test(arg)) fromParams.add(i);
  });
  const program = [argv[0] ?? "", ...step.fallbacks].find((p) => existsSync(p));
  if (program === undefined) return { ok: true as const, warnings: [] };
  return checkProgram([program, ...argv.slice(1)], spec.allow_interpreter === true, fromParams);
}

function resolveLimits(
  spec: ActionSpec,
):
  | { ok: true; limits: Pick<LoadedAction, "timeoutMs" | "maxOutputBytes" | "maxScanBytes"> }
  | { ok: false; problem: string } {
  const timeoutMs =
    spec.timeout === undefined ? ACTION_LIMITS.timeoutMs.default : parseDuration(spec.timeout);
  const maxOutputBytes =
    spec.max_output === undefined ? ACTION_LIMITS.maxOutputBytes.default : parseSize(spec.max_output);
  const maxScanBytes =
    spec.max_scan === undefined ? ACTION_LIMITS.maxScanBytes.default : parseSize(spec.max_scan);
  if (timeoutMs === undefined || timeoutMs > ACTION_LIMITS.timeoutMs.max)
    return { ok: false, problem: "timeout is not a duration up to 15m" };
  if (maxOutputBytes === undefined || maxOutputBytes > ACTION_LIMITS.maxOutputBytes.max) {
    return { ok: false, problem: "max_output is not a size up to 8MiB" };
  }
  if (maxScanBytes === undefined || maxScanBytes > ACTION_LIMITS.maxScanBytes.max) {
    return { ok: false, problem: "max_scan is not a size up to 64MiB" };
  }
  return { ok: true, limits: { timeoutMs, maxOutputBytes, maxScanBytes } };
}

type ScriptRead = { ok: true; script: ActionScript } | { ok: false; code: ActionsErrorCode; message: string };

/** Reads a script inside the catalog's directory and checks its bytes against the signed digest. */
function readScript(dir: string, spec: NonNullable<ActionSpec["script"]>): ScriptRead {
  if (isAbsolute(spec.file) || spec.file.split("/").includes("..")) {
    return {
      ok: false,
      code: "ACTION_INVALID",
      message: `script ${spec.file} must be a path inside the catalog directory`,
    };
  }
  let bytes: Buffer;
  try {
    const real = realpathSync(resolve(dir, spec.file));
    const inside = relative(realpathSync(dir), real);
    if (inside.startsWith(`..${sep}`) || inside === ".." || isAbsolute(inside) || !statSync(real).isFile()) {
      return {
        ok: false,
        code: "ACTION_INVALID",
        message: `script ${spec.file} is not a file inside the catalog directory`,
      };
    }
    if (statSync(real).size > MAX_CATALOG_BYTES)
      return { ok: false, code: "ACTION_INVALID", message: `script ${spec.file} is larger than 1 MiB` };
    bytes = readFileSync(real);
  } catch (e) {
    return {
      ok: false,
      code: "ACTION_INVALID",
      message: `cannot read script ${spec.file}: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  const digest = createHash("sha256").update(bytes).digest("hex");
  if (spec.sha256 !== digest) {
    return {
      ok: false,
      code: "SIGNATURE_INVALID",
      message: `script ${spec.file} does not match its signed digest`,
    };
  }
  return {
    ok: true,
    script: { file: spec.file, bytes, interpreter: spec.interpreter, args: spec.args ?? [] },
  };
}

function isCanonicalAbsolute(path: string): boolean {
  return isAbsolute(path) && resolve(path) === path && !path.includes("\0");
}

function signatureRefusal(reason: "unsigned" | "untrusted-key" | "invalid"): ActionLoad {
  if (reason === "unsigned") return refuse("ACTION_UNSIGNED", "the action is not signed");
  if (reason === "untrusted-key")
    return refuse("SIGNATURE_UNTRUSTED_KEY", "the action is signed by a key that is not trusted");
  return refuse("SIGNATURE_INVALID", "the signature does not verify: the action was changed after signing");
}

function refuse(code: ActionsErrorCode, message: string): ActionLoad {
  return { ok: false, code, message };
}

function error(
  file: string,
  action: string | undefined,
  code: ActionsErrorCode,
  message: string,
): CatalogDiagnostic {
  return { file, ...(action !== undefined ? { action } : {}), code, severity: "error", message };
}

function actionLabel(value: unknown, index: number): string {
  const name = (value as { name?: unknown } | null)?.name;
  return typeof name === "string" && name.length <= 64 ? name : `#${index}`;
}
