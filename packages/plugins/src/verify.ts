import { type AnyToolDefinition, findOpenObject, type Risk, toJsonSchema } from "@pablo/kernel";
import type { TSchema } from "typebox";
import { firstDifference } from "./compare.js";
import { type DiagnosticList, messageOf, PluginCode } from "./diagnostics.js";
import { effectiveRisk, type ManifestTool, type PluginManifest } from "./manifest.js";
import { isValidToolName, pluginProviderName } from "./naming.js";
import type { PluginTool } from "./sdk.js";
import { toKernelTool } from "./wrap.js";

/**
 * Checks what the module registered against what the manifest declares: every registered tool
 * is declared, with the same closed input schema and effects (and risk, when both state one),
 * and every declared tool is registered. Returns the kernel tools when nothing is wrong, and the
 * registered tools written as manifest entries (what `PluginCheck` suggests). Tools in `leftOut`
 * (their effects are not granted) are still checked against the manifest but never become kernel
 * tools, and a plugin that does not register them is not missing them.
 */
export function verifyTools(
  manifest: PluginManifest,
  registered: readonly unknown[],
  timeoutMs: number,
  diagnostics: DiagnosticList,
  leftOut: ReadonlySet<string> = new Set(),
): { tools: AnyToolDefinition[]; declarations: ManifestTool[] } {
  const declared = new Map(manifest.tools.map((t, i) => [t.name, { tool: t, index: i }]));
  const seen = new Set<string>();
  const tools: AnyToolDefinition[] = [];
  const declarations: ManifestTool[] = [];
  for (const candidate of registered) {
    const tool = asPluginTool(candidate, diagnostics);
    if (!tool) continue;
    const where = { tool: tool.name };
    if (seen.has(tool.name)) {
      diagnostics.error(PluginCode.DUPLICATE_TOOL, `tool ${tool.name} is registered twice`, where);
      continue;
    }
    seen.add(tool.name);
    const schema = schemaOf(tool.inputSchema, tool.name, diagnostics);
    if (schema) declarations.push(declarationOf(tool, schema));
    const entry = declared.get(tool.name);
    if (!entry) {
      diagnostics.error(
        PluginCode.UNDECLARED_TOOL,
        `the module registers tool ${tool.name}, which the manifest does not declare in pablo.tools`,
        where,
      );
      continue;
    }
    const path = `/pablo/tools/${entry.index}`;
    if (schema) {
      const diff = firstDifference(entry.tool.inputSchema, schema);
      if (diff) {
        diagnostics.error(
          PluginCode.SCHEMA_MISMATCH,
          `tool ${tool.name}: the manifest's inputSchema differs from the registered schema at ${diff.path} (manifest ${diff.declared}, module ${diff.actual})`,
          { ...where, path: `${path}/inputSchema` },
        );
      }
    }
    checkEffects(entry.tool, tool, path, diagnostics);
    const risk = checkRisk(entry.tool, tool, path, diagnostics);
    if (pluginProviderName(manifest.id, tool.name).shortened) {
      diagnostics.warn(
        PluginCode.NAME_SHORTENED,
        `plugin_${manifest.id}_${tool.name} exceeds 64 characters; models will see ${pluginProviderName(manifest.id, tool.name).name}`,
        where,
      );
    }
    if (leftOut.has(tool.name)) continue;
    tools.push(toKernelTool(tool, { pluginId: manifest.id, risk, effects: entry.tool.effects, timeoutMs }));
  }
  manifest.tools.forEach((t, i) => {
    if (!seen.has(t.name) && !leftOut.has(t.name)) {
      diagnostics.error(
        PluginCode.MISSING_TOOL,
        `the manifest declares tool ${t.name}, which the module does not register`,
        { tool: t.name, path: `/pablo/tools/${i}` },
      );
    }
  });
  return { tools, declarations };
}

function asPluginTool(value: unknown, diagnostics: DiagnosticList): PluginTool | undefined {
  if (value === null || typeof value !== "object") {
    diagnostics.error(PluginCode.INVALID_TOOL, "registerTool was given something that is not a tool object");
    return undefined;
  }
  const t = value as Record<string, unknown>;
  const name = typeof t["name"] === "string" ? t["name"] : String(t["name"]);
  const problems: string[] = [];
  if (typeof t["name"] !== "string") problems.push("name must be a string");
  if (typeof t["description"] !== "string" || t["description"] === "")
    problems.push("description must be a non-empty string");
  if (typeof t["summary"] !== "string" || t["summary"] === "")
    problems.push("summary must be a non-empty string");
  if (typeof t["execute"] !== "function") problems.push("execute must be a function");
  if (t["accesses"] !== undefined && typeof t["accesses"] !== "function")
    problems.push("accesses must be a function");
  if (!Array.isArray(t["effects"]) || !t["effects"].every((e) => typeof e === "string"))
    problems.push("effects must be an array of strings");
  if (t["inputSchema"] === null || typeof t["inputSchema"] !== "object")
    problems.push("inputSchema must be a schema object");
  if (problems.length > 0) {
    diagnostics.error(PluginCode.INVALID_TOOL, `tool ${name}: ${problems.join("; ")}`, { tool: name });
    return undefined;
  }
  if (!isValidToolName(name)) {
    diagnostics.error(
      PluginCode.INVALID_TOOL_NAME,
      `tool name ${JSON.stringify(name)} must match ^[a-zA-Z][a-zA-Z0-9_-]*$ and be at most 64 characters`,
      { tool: name },
    );
    return undefined;
  }
  return value as PluginTool;
}

function schemaOf(
  schema: TSchema,
  name: string,
  diagnostics: DiagnosticList,
): Record<string, unknown> | undefined {
  let json: Record<string, unknown>;
  try {
    json = toJsonSchema(schema);
  } catch (error) {
    diagnostics.error(PluginCode.INVALID_TOOL, `tool ${name}: inputSchema is not JSON: ${messageOf(error)}`, {
      tool: name,
    });
    return undefined;
  }
  if (json["type"] !== "object") {
    diagnostics.error(PluginCode.OPEN_SCHEMA, `tool ${name}: inputSchema must be an object schema`, {
      tool: name,
    });
    return json;
  }
  const open = findOpenObject(json);
  if (open) {
    diagnostics.error(
      PluginCode.OPEN_SCHEMA,
      `tool ${name}: the input schema object at ${open} must set additionalProperties: false`,
      { tool: name },
    );
  }
  return json;
}

function checkEffects(
  declared: ManifestTool,
  tool: PluginTool,
  path: string,
  diagnostics: DiagnosticList,
): void {
  const a = [...new Set(declared.effects)].sort();
  const b = [...new Set(tool.effects)].sort();
  if (a.join("\n") !== b.join("\n")) {
    diagnostics.error(
      PluginCode.EFFECTS_MISMATCH,
      `tool ${tool.name}: the manifest declares effects [${a.join(", ")}] but the module declares [${b.join(", ")}]`,
      { tool: tool.name, path: `${path}/effects` },
    );
  }
}

function checkRisk(
  declared: ManifestTool,
  tool: PluginTool,
  path: string,
  diagnostics: DiagnosticList,
): Risk {
  const risk = effectiveRisk(declared.risk);
  if (declared.risk !== risk) {
    diagnostics.warn(
      PluginCode.RISK_DEFAULTED,
      `tool ${tool.name}: risk ${declared.risk === undefined ? "is missing" : `${JSON.stringify(declared.risk)} is invalid`}; medium applies`,
      { tool: tool.name, path: `${path}/risk` },
    );
  } else if (tool.risk !== undefined && tool.risk !== risk) {
    diagnostics.error(
      PluginCode.RISK_MISMATCH,
      `tool ${tool.name}: the manifest declares risk ${risk} but the module declares ${String(tool.risk)}`,
      { tool: tool.name, path: `${path}/risk` },
    );
  }
  return risk;
}

function declarationOf(tool: PluginTool, schema: Record<string, unknown>): ManifestTool {
  return {
    name: tool.name,
    summary: tool.summary,
    risk: effectiveRisk(tool.risk),
    effects: [...tool.effects],
    inputSchema: schema,
  };
}
