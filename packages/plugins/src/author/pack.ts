import { execFile } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { messageOf, PluginCode, type PluginDiagnostic } from "../diagnostics.js";
import { type CheckResult, checkPlugin } from "./check.js";

export interface PackResult {
  readonly ok: boolean;
  readonly messages: readonly PluginDiagnostic[];
  /** Absolute path of the tarball written. */
  readonly tarball?: string;
  readonly filename?: string;
  readonly size?: number;
  readonly integrity?: string;
  /** Paths inside the tarball. */
  readonly files?: readonly string[];
}

export interface PackOptions {
  /** The npm executable (default `npm` from PATH). */
  readonly npm?: string;
  readonly signal?: AbortSignal;
}

/**
 * Checks the package, then writes its npm tarball to `outDir` with `npm pack --ignore-scripts`
 * (no lifecycle script runs: build before packing). Refuses when the check fails or when the
 * tarball would not contain the entry file.
 */
export async function packPlugin(
  dir: string,
  outDir: string,
  options: PackOptions = {},
): Promise<PackResult> {
  const packageDir = resolve(dir);
  const checked: CheckResult = await checkPlugin(packageDir);
  if (!checked.valid) return { ok: false, messages: checked.messages };
  const unpublishable = await workspaceSpecifiers(packageDir);
  if (unpublishable.length > 0) return { ok: false, messages: [...checked.messages, ...unpublishable] };
  const destination = resolve(outDir);
  await mkdir(destination, { recursive: true });
  let stdout: string;
  try {
    stdout = await run(
      options.npm ?? "npm",
      ["pack", "--json", "--ignore-scripts", "--pack-destination", destination],
      packageDir,
      options.signal,
    );
  } catch (error) {
    return {
      ok: false,
      messages: [...checked.messages, packFailure(packageDir, `npm pack failed: ${messageOf(error)}`)],
    };
  }
  const report = parseReport(stdout);
  if (!report)
    return {
      ok: false,
      messages: [...checked.messages, packFailure(packageDir, "npm pack printed no report")],
    };
  const entry = checked.entry?.replace(/^\.\//, "");
  if (entry && !report.files.includes(entry)) {
    return {
      ok: false,
      messages: [
        ...checked.messages,
        packFailure(
          packageDir,
          `the tarball does not contain the entry ${entry}; add it to package.json "files"`,
        ),
      ],
    };
  }
  return {
    ok: true,
    messages: checked.messages,
    tarball: join(destination, report.filename),
    filename: report.filename,
    size: report.size,
    integrity: report.integrity,
    files: report.files,
  };
}

/**
 * `npm pack` copies `workspace:` and `catalog:` specifiers into the tarball unchanged, and the
 * published package then cannot be installed. Such a package is packed by its workspace's own
 * package manager (`pnpm pack`), which replaces them with versions.
 */
async function workspaceSpecifiers(dir: string): Promise<PluginDiagnostic[]> {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  } catch {
    return [];
  }
  const found: PluginDiagnostic[] = [];
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    const deps = manifest[field];
    if (deps === null || typeof deps !== "object") continue;
    for (const [name, spec] of Object.entries(deps as Record<string, unknown>)) {
      if (typeof spec === "string" && /^(workspace|catalog):/.test(spec)) {
        found.push({
          plugin: dir,
          severity: "error",
          code: PluginCode.UNPUBLISHABLE_DEPENDENCY,
          path: `/${field}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`,
          message: `${field}.${name} is ${JSON.stringify(spec)}, which npm would publish as is; pack it with the workspace's package manager (pnpm pack) or give a version range`,
        });
      }
    }
  }
  return found;
}

function packFailure(dir: string, message: string): PluginDiagnostic {
  return { plugin: dir, severity: "error", code: PluginCode.PACK_FAILED, message };
}

function parseReport(
  stdout: string,
): { filename: string; size: number; integrity: string; files: string[] } | undefined {
  try {
    const parsed = JSON.parse(stdout.slice(stdout.indexOf("["))) as Array<{
      filename: string;
      size: number;
      integrity: string;
      files: Array<{ path: string }>;
    }>;
    const first = parsed[0];
    if (!first) return undefined;
    // npm names scoped tarballs `scope-name-1.0.0.tgz`; older versions reported `@scope/...`.
    const filename = first.filename.replace(/^@/, "").replace(/\//, "-");
    return { filename, size: first.size, integrity: first.integrity, files: first.files.map((f) => f.path) };
  } catch {
    return undefined;
  }
}

/** Runs a command with a minimal environment, never through a shell. */
function run(command: string, args: string[], cwd: string, signal: AbortSignal | undefined): Promise<string> {
  const env: Record<string, string> = {};
  for (const key of ["PATH", "HOME", "TMPDIR", "LANG", "npm_config_cache", "NPM_CONFIG_CACHE"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return new Promise((resolvePromise, reject) => {
    execFile(
      command,
      args,
      { cwd, env, maxBuffer: 16 * 1024 * 1024, timeout: 120_000, ...(signal ? { signal } : {}) },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}${stderr ? `: ${stderr.slice(-2000)}` : ""}`));
        else resolvePromise(stdout);
      },
    );
  });
}
