import { dirname, resolve } from "node:path";
import { type AuditOptions, loadDeploymentFile } from "@pablo/config";
import { AuditErrorCode } from "@pablo/kernel";
import { defaultAuditPath } from "@pablo/kernel/node";
import { type GlobalOptions, type ParsedCommand, UsageError } from "./args.js";
import type { ActionSources } from "./commands/actions.js";
import { ConfigFailure } from "./config-failure.js";
import { openTask, resolveBindings, type TaskEnvironment, type TaskHooks } from "./distribution.js";
import { Exit } from "./exit-codes.js";
import type { Io } from "./output.js";
import { distributionSections } from "./providers.js";
import { USAGE } from "./usage.js";

/**
 * The terminal's permission and question cards (readline, the MCP elicitation field checks), loaded
 * only when stdin and stderr are terminals: a script or a pipe never has a broker.
 */
const load = {
  broker: () => import("./broker.js"),
};

/** Opens the task for a command that needs the governed catalog, and always closes it. */
export async function withTask(
  io: Io,
  parsed: ParsedCommand,
  body: (task: TaskEnvironment) => number | Promise<number>,
  hooks: Pick<TaskHooks, "events" | "seed"> = {},
): Promise<number> {
  if (parsed.help) {
    io.stdout(USAGE);
    return Exit.OK;
  }
  const broker = io.isTTY ? (await load.broker()).terminalBroker(io) : undefined;
  const task = await openTask(parsed.global, {
    cwd: io.cwd,
    env: io.env,
    signal: io.signal,
    ...hooks,
    ...(broker ? { broker } : {}),
  });
  if (task.permissionRaised) io.stderr(`pablo: ${task.permissionRaised}\n`);
  let code: number;
  try {
    code = await body(task);
  } finally {
    await task.close();
  }
  return reportAuditFailures(io, task, code);
}

/**
 * A call whose record was lost must not pass in silence: the person is told, and a command that
 * would have succeeded exits 2 instead (a failure or denial keeps its own code).
 */
function reportAuditFailures(io: Io, task: TaskEnvironment, code: number): number {
  const lost = task.auditFailures();
  if (lost === 0) return code;
  io.stderr(
    `pablo: ${lost} audit record(s) could not be written to ${task.auditPath}; what they record ran unaudited [${AuditErrorCode.AUDIT_WRITE_FAILED}]\n`,
  );
  return code === Exit.OK ? Exit.USAGE : code;
}

/**
 * The catalogs and trusted keys `pablo actions verify|list|check` read: the ones named on the
 * command line, else the deployment's `[options.actions]` (paths relative to its file).
 */
export function actionSources(parsed: ParsedCommand, catalogs: readonly string[], io: Io): ActionSources {
  const trusted = (parsed.values["trusted"] as string[] | undefined) ?? [];
  const json = parsed.global.json;
  if (catalogs.length > 0) return { catalogs, trusted, json };
  if (!parsed.global.config) {
    throw new UsageError(
      "pablo actions: name CATALOG files (with --trusted FILE), or --config with [options.actions]",
    );
  }
  const file = resolve(io.cwd, parsed.global.config);
  const loaded = loadDeployment(parsed.global, io);
  const section = loaded.options["actions"] as { catalogs: string[]; trusted_keys: string[] } | undefined;
  if (!section) throw new UsageError(`${file} has no [options.actions]`);
  const base = dirname(file);
  return {
    catalogs: section.catalogs.map((c) => resolve(base, c)),
    trusted: [...trusted, ...section.trusted_keys.map((k) => resolve(base, k))],
    json,
  };
}

/** The audit file a deployment names (`[options.audit] path`), else the default one. */
export function configuredAuditPath(global: GlobalOptions, io: Io): string {
  if (!global.config) return defaultAuditPath(io.env);
  const audit = loadDeployment(global, io).options["audit"] as AuditOptions | undefined;
  return audit?.path ?? defaultAuditPath(io.env);
}

function loadDeployment(global: GlobalOptions, io: Io) {
  const file = resolve(io.cwd, global.config as string);
  const { bindings } = resolveBindings(global, io.cwd);
  const loaded = loadDeploymentFile(file, { sections: distributionSections(), bindings });
  if (!loaded.ok) throw new ConfigFailure(loaded.errors);
  return loaded.value;
}
