import { delegateAuthority, findAgentProvider, SubagentCode } from "@pablo/agent/provider";
import { isDeferred } from "@pablo/kernel";
import { explainRemotes, remoteStatuses } from "../a2a-status.js";
import type { TaskEnvironment } from "../distribution.js";
import { Exit } from "../exit-codes.js";
import { explainMcpAuthorization } from "../mcp-status.js";
import { type Io, printJson, table } from "../output.js";

/** `pablo tools [--explain] [--json]`: the effective catalog, and with --explain why each excluded tool is out. */
export function toolsCommand(
  io: Io,
  task: TaskEnvironment,
  options: { explain: boolean; json: boolean },
): number {
  const visibility = task.session.visibility();
  const visible = visibility.filter((v) => v.visible);
  const excluded = visibility.filter((v) => !v.visible);
  if (options.json) {
    printJson(io, {
      tools: visible.map(({ entry }) => ({
        name: entry.name,
        providerName: entry.providerName,
        risk: entry.definition.risk,
        effects: entry.definition.effects,
        category: entry.definition.category,
        deferred: isDeferred(entry.definition, task.session.mode),
        summary: entry.definition.summary,
        inputSchema: entry.inputJsonSchema,
      })),
      ...(options.explain
        ? {
            excluded: excluded.map(({ entry, decision, code }) => ({
              name: entry.name,
              providerName: entry.providerName,
              code,
              layer: decision.layer,
              rule: decision.rule,
              reason: decision.reason,
            })),
            diagnostics: task.diagnostics,
            remotes: remoteStatuses(task.providers),
            mcpAuthorization: task.mcpAuthorization,
            layers: task.layers.map((l) => l.id),
            mode: task.session.mode,
            permission: task.session.permission.mode,
            sandbox: { kind: task.sandbox.options.kind, explain: task.sandbox.explain },
            ...(task.permissionRaised ? { permissionRaised: task.permissionRaised } : {}),
          }
        : {}),
    });
    return Exit.OK;
  }
  const rows = visible.map(({ entry }) => [
    entry.providerName,
    entry.name,
    entry.definition.risk,
    isDeferred(entry.definition, task.session.mode) ? "deferred" : "active",
    entry.definition.summary,
  ]);
  io.stdout(
    rows.length > 0
      ? `${table([["PROVIDER NAME", "NATIVE", "RISK", "LOAD", "SUMMARY"], ...rows])}\n`
      : "no tools are available\n",
  );
  if (options.explain) {
    io.stdout(
      `\nmode ${task.session.mode}; permission ${task.session.permission.mode}; layers, outermost first: ${task.layers.map((l) => l.id).join(", ")}\n`,
    );
    if (task.permissionRaised) io.stdout(`permission: ${task.permissionRaised}\n`);
    io.stdout(`${task.sandbox.explain}\n`);
    if (excluded.length > 0) {
      io.stdout("\nexcluded:\n");
      for (const { entry, decision } of excluded) {
        io.stdout(`  ${entry.name}  denied by ${decision.layer}/${decision.rule}: ${decision.reason}\n`);
      }
    }
    for (const line of explainRemotes(task.providers)) io.stdout(`\nremote ${line}\n`);
    for (const line of explainMcpAuthorization(task.mcpAuthorization)) io.stdout(`\n${line}\n`);
    for (const diagnostic of task.diagnostics) {
      io.stdout(
        `\nleft out: ${diagnostic.source}${diagnostic.tool ? `/${diagnostic.tool}` : ""}: ${diagnostic.message} [${diagnostic.code}]\n`,
      );
    }
  }
  return Exit.OK;
}

/**
 * `pablo tools --delegate NAME`: a Task delegate's effective authority: its definition's tools
 * intersected with the session's, and for every other tool the layer and rule that keep it out.
 */
export function delegateToolsCommand(
  io: Io,
  task: TaskEnvironment,
  options: { name: string; json: boolean },
): number {
  const agent = findAgentProvider(task.providers);
  const subagent = agent?.subagents.find((s) => s.name === options.name);
  if (!subagent) {
    const known = agent?.subagents.map((s) => s.name).join(", ") || "none";
    io.stderr(
      `pablo: no subagent ${JSON.stringify(options.name)} in [options.agent.subagents] (defined: ${known})\n`,
    );
    return Exit.USAGE;
  }
  const visibility = delegateAuthority(task.kernel, task.session, subagent);
  const allowed = visibility.filter((v) => v.visible).map((v) => v.entry.name);
  const excluded = visibility
    .filter((v) => !v.visible)
    .map((v) => ({ name: v.entry.name, layer: v.decision.layer, rule: v.decision.rule }));
  const dropped = (agent?.diagnostics ?? [])
    .filter((d) => d.subagent === subagent.name && d.code === SubagentCode.SUBAGENT_TOOL_DROPPED)
    .map((d) => d.tool ?? "");
  if (options.json) {
    printJson(io, { delegate: subagent.name, grants: subagent.grants, dropped, tools: allowed, excluded });
    return Exit.OK;
  }
  io.stdout(
    `delegate ${subagent.name}: ${subagent.description}\ndefinition grants: ${subagent.grants.join(", ")}\n`,
  );
  if (dropped.length > 0) {
    io.stdout(
      `dropped from the definition (no delegate can be given them): ${dropped.map((t) => JSON.stringify(t)).join(", ")}\n`,
    );
  }
  io.stdout(`may call: ${allowed.join(", ") || "nothing"}\n`);
  for (const e of excluded) io.stdout(`  ${e.name}  denied by ${e.layer}/${e.rule}\n`);
  return Exit.OK;
}
