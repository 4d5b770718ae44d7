import { checkPolicy } from "@pablo/config";
import { a2aPolicyFindings } from "../a2a-status.js";
import type { TaskEnvironment } from "../distribution.js";
import { Exit } from "../exit-codes.js";
import { explainMcpAuthorization } from "../mcp-status.js";
import { type Io, printJson } from "../output.js";

/** `pablo policy check [--json]`: lints the configuration; exits 1 when it finds anything. */
export function policyCheckCommand(
  io: Io,
  task: TaskEnvironment,
  options: { json: boolean; launchers: { path: string; where: string }[] },
): number {
  const findings = [
    ...checkPolicy({
      layers: task.layers,
      catalog: task.catalog,
      credentials: task.deployment.credentials,
      references: task.references,
      launchers: options.launchers,
    }),
    ...a2aPolicyFindings(task.deployment).map((f) => ({
      kind: f.kind,
      layer: "options.a2a",
      rule: f.where,
      message: f.message,
    })),
  ];
  // What the configuration names but the task left out (delegate tools no definition can have,
  // servers and plugins that did not load) is a finding too: it is a mistake in the file.
  const leftOut = task.diagnostics
    .filter((d) => !INFORMATIONAL.has(d.code))
    .map((d) => ({
      kind: "left-out",
      source: d.source,
      ...(d.tool ? { tool: d.tool } : {}),
      code: d.code,
      message: d.message,
    }));
  // A risk the deployment accepted on purpose (allow_interpreter) is said, but is no mistake.
  const warnings = task.diagnostics
    .filter((d) => WARNINGS.has(d.code))
    .map((d) => ({
      source: d.source,
      ...(d.tool ? { tool: d.tool } : {}),
      code: d.code,
      message: d.message,
    }));
  // Whether an OAuth server has a token is state, not a mistake in the file: said, never a finding.
  const mcpAuthorization = task.mcpAuthorization;
  if (options.json) printJson(io, { findings, leftOut, warnings, mcpAuthorization });
  else {
    for (const line of explainMcpAuthorization(mcpAuthorization)) io.stdout(`${line}\n`);
    for (const w of warnings) {
      io.stdout(`warning: ${w.source}${w.tool ? `/${w.tool}` : ""}: ${w.message} [${w.code}]\n`);
    }
    if (findings.length === 0 && leftOut.length === 0) io.stdout("policy check: no findings\n");
    for (const f of findings) io.stdout(`${f.kind}: ${f.layer}/${f.rule}: ${f.message}\n`);
    for (const d of leftOut) {
      io.stdout(`left out: ${d.source}${d.tool ? `/${d.tool}` : ""}: ${d.message} [${d.code}]\n`);
    }
  }
  return findings.length === 0 && leftOut.length === 0 ? Exit.OK : Exit.FAILED;
}

/** Notes about the host rather than the configuration (no browser installed): not findings. */
const INFORMATIONAL: ReadonlySet<string> = new Set(["BROWSER_UNAVAILABLE", "INTERPRETER_ALLOWED"]);

/** Diagnostics policy check prints as warnings without failing. */
const WARNINGS: ReadonlySet<string> = new Set(["INTERPRETER_ALLOWED"]);

/** Launchers the configuration names outside rules: MCP stdio commands. */
export function configuredLaunchers(task: TaskEnvironment): { path: string; where: string }[] {
  const mcp = task.deployment.options["mcp"] as
    | { servers?: Record<string, { transport?: string; command?: string }> }
    | undefined;
  return Object.entries(mcp?.servers ?? {})
    .filter(([, server]) => server.transport === "stdio" && typeof server.command === "string")
    .map(([name, server]) => ({
      path: server.command as string,
      where: `options.mcp.servers.${name}.command`,
    }));
}
