import { readFileSync } from "node:fs";
import { resolveSection } from "@pablo/kernel";
import { parse, TomlError } from "smol-toml";
import type { Static, TSchema } from "typebox";
import { type Bindings, isBindingPath, resolveBindingPath } from "./bindings.js";
import { type ConfigError, ConfigErrorCode, type ConfigResult } from "./errors.js";
import { locateKey } from "./locate.js";
import { type CredentialConfig, deploymentSchema } from "./sections.js";

/** A validated deployment: credentials and options with every binding path resolved. */
export interface Deployment {
  readonly file: string;
  readonly credentials: Readonly<Record<string, CredentialConfig>>;
  readonly options: Readonly<Record<string, unknown>>;
}

export interface LoadOptions {
  /** Section schemas contributed by the distribution's packages, by `[options.NAME]`. */
  readonly sections: Readonly<Record<string, TSchema>>;
  readonly bindings: Bindings;
}

/** Reads and validates a deployment file. Every problem comes back with file, line and key path. */
export function loadDeploymentFile(file: string, options: LoadOptions): ConfigResult<Deployment> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    return failure([
      {
        code: ConfigErrorCode.READ_FAILED,
        file,
        line: 0,
        keyPath: "",
        message: `cannot read the file (${reason})`,
      },
    ]);
  }
  return parseDeployment(text, file, options);
}

/** Parses and validates deployment text; `file` names it in errors. */
export function parseDeployment(text: string, file: string, options: LoadOptions): ConfigResult<Deployment> {
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (error) {
    const line = error instanceof TomlError ? error.line : 0;
    const message =
      error instanceof Error ? (error.message.split("\n")[0] ?? "invalid TOML") : "invalid TOML";
    return failure([{ code: ConfigErrorCode.SYNTAX, file, line, keyPath: "", message }]);
  }
  const errors: ConfigError[] = [];
  const resolved = resolveBindings(raw, [], options.bindings, (keyPath, code, message) =>
    errors.push({ code, file, line: locateKey(text, keyPath), keyPath: keyPath.join("."), message }),
  ) as Record<string, unknown>;
  if (errors.length > 0) return failure(errors);

  const checked = resolveSection(deploymentSchema(options.sections), resolved);
  if (!checked.ok) {
    return failure(
      checked.errors.map((e) => {
        const keyPath = [...e.keys];
        return {
          code: e.kind === "unknown-key" ? ConfigErrorCode.UNKNOWN_KEY : ConfigErrorCode.INVALID_VALUE,
          file,
          line: locateKey(text, keyPath),
          keyPath: keyPath.join("."),
          message: e.message,
        };
      }),
    );
  }
  const value = resolved as Static<ReturnType<typeof deploymentSchema>> & {
    credentials?: Record<string, CredentialConfig>;
    options?: Record<string, unknown>;
  };
  return { ok: true, value: { file, credentials: value.credentials ?? {}, options: value.options ?? {} } };
}

/** The typed value of one `[options.NAME]` section (already validated against `schema`). */
export function section<S extends TSchema>(
  deployment: Deployment,
  name: string,
  _schema: S,
): Static<S> | undefined {
  return deployment.options[name] as Static<S> | undefined;
}

function resolveBindings(
  value: unknown,
  keyPath: string[],
  bindings: Bindings,
  report: (keyPath: string[], code: ConfigError["code"], message: string) => void,
): unknown {
  if (isBindingPath(value)) {
    const ref = value as Record<string, unknown>;
    const keys = Object.keys(ref).sort().join(",");
    if (keys !== "base,name,path" || typeof ref["name"] !== "string" || typeof ref["path"] !== "string") {
      report(
        keyPath,
        ConfigErrorCode.INVALID_BINDING,
        'a binding path is { base = "binding", name = "NAME", path = "REL" }',
      );
      return value;
    }
    const result = resolveBindingPath({ base: "binding", name: ref["name"], path: ref["path"] }, bindings);
    if (result.ok) return result.path;
    report(
      keyPath,
      result.missing ? ConfigErrorCode.MISSING_BINDING : ConfigErrorCode.INVALID_BINDING,
      result.message,
    );
    return value;
  }
  if (Array.isArray(value))
    return value.map((item, i) => resolveBindings(item, [...keyPath, String(i)], bindings, report));
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value))
      out[key] = resolveBindings(child, [...keyPath, key], bindings, report);
    return out;
  }
  return value;
}

function failure<T>(errors: readonly ConfigError[]): ConfigResult<T> {
  return { ok: false, errors };
}
