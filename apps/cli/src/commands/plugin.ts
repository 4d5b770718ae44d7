import { resolve } from "node:path";
import { checkPlugin, type PluginDiagnostic, packPlugin, scaffoldPlugin } from "@pablo/plugins";
import { Exit } from "../exit-codes.js";
import { type Io, printJson } from "../output.js";

/** `pablo plugin scaffold NAME [--dir DIR]`: a publishable package with one example tool, its test and README. */
export async function pluginScaffoldCommand(
  io: Io,
  options: { name: string; dir: string | undefined; json: boolean },
): Promise<number> {
  const dir = resolve(io.cwd, options.dir ?? options.name.replace(/^@[^/]+\//, ""));
  const result = await scaffoldPlugin(dir, options.name);
  if (options.json) printJson(io, { dir, ...result });
  else if (result.ok)
    io.stdout(
      `created ${options.name} in ${dir}\nnext: cd ${dir} && npm install && npm test && pablo plugin check .\n`,
    );
  else io.stderr(`pablo: ${result.message} [${result.code}]\n`);
  return result.ok ? Exit.OK : Exit.FAILED;
}

/** `pablo plugin check DIR`: manifest, exports, closed schemas and names, with precise messages. */
export async function pluginCheckCommand(io: Io, options: { dir: string; json: boolean }): Promise<number> {
  const result = await checkPlugin(resolve(io.cwd, options.dir));
  if (options.json) printJson(io, result);
  else {
    for (const message of result.messages) io.stdout(`${formatMessage(message)}\n`);
    io.stdout(result.valid ? `ok: ${result.registered.length} tool(s) match the manifest\n` : "invalid\n");
  }
  return result.valid ? Exit.OK : Exit.FAILED;
}

/** `pablo plugin pack DIR [--out DIR]`: checks, then produces the npm tarball. */
export async function pluginPackCommand(
  io: Io,
  options: { dir: string; out: string | undefined; json: boolean },
): Promise<number> {
  const dir = resolve(io.cwd, options.dir);
  const result = await packPlugin(dir, resolve(io.cwd, options.out ?? options.dir), { signal: io.signal });
  if (options.json) printJson(io, result);
  else {
    for (const message of result.messages) io.stdout(`${formatMessage(message)}\n`);
    if (result.ok) io.stdout(`packed ${result.tarball}\n`);
  }
  return result.ok ? Exit.OK : Exit.FAILED;
}

function formatMessage(d: PluginDiagnostic): string {
  return `${d.severity} ${d.code}${d.path ? ` at ${d.path}` : ""}${d.tool ? ` (tool ${d.tool})` : ""}: ${d.message}`;
}
