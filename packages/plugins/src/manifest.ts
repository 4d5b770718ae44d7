import { StringRecord } from "@pablo/kernel";
import Type, { type Static } from "typebox";
import { Check, Errors } from "typebox/value";

/** Permissions a plugin may request; a deployment grants them in `grants`. */
export const PLUGIN_PERMISSIONS = ["agent.tool.register", "agent.skill.register"] as const;
export type PluginPermission = (typeof PLUGIN_PERMISSIONS)[number];

const ManifestToolSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: "^[a-zA-Z][a-zA-Z0-9_-]*$",
      description: "Short tool name; the native name is plugin.<id>.<name>.",
    }),
    summary: Type.Optional(
      Type.String({
        description: "One line for reviewers; the module's summary is the one shown to models.",
      }),
    ),
    risk: Type.Optional(
      Type.String({ description: "low | medium | high. Missing or any other value means medium." }),
    ),
    effects: Type.Array(
      Type.String({ minLength: 1, description: "An effect: net, fs.read, fs.write, process, ..." }),
      {
        uniqueItems: true,
        description: "Every effect the tool may exercise; each must be granted by the deployment.",
      },
    ),
    inputSchema: StringRecord(Type.String(), Type.Unknown(), {
      description: "The tool's input JSON Schema, exactly as the module registers it (closed objects).",
    }),
  },
  { additionalProperties: false, description: "One tool the plugin declares." },
);

/** The `"pablo"` field of a plugin's package.json. */
export const PluginManifestSchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: "^[a-z][a-z0-9]*(-[a-z0-9]+)*$",
      description: "Plugin ID: lower-case letters, digits and single dashes.",
    }),
    version: Type.String({
      pattern: "^\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$",
      description: "Plugin version; must equal the package version.",
    }),
    permissions: Type.Array(
      Type.Union([Type.Literal("agent.tool.register"), Type.Literal("agent.skill.register")]),
      {
        uniqueItems: true,
        description: "Permissions the plugin requests: agent.tool.register, agent.skill.register.",
      },
    ),
    tools: Type.Array(ManifestToolSchema, { description: "Every tool the module registers, and no other." }),
    skills: Type.Optional(
      Type.Array(
        Type.String({
          minLength: 1,
          description: "A directory of SKILL.md folders, relative to the package.",
        }),
        {
          uniqueItems: true,
          description: "Skill directories the plugin contributes (needs agent.skill.register).",
        },
      ),
    ),
  },
  { additionalProperties: false, description: "A Pablo plugin manifest." },
);

export type PluginManifest = Static<typeof PluginManifestSchema>;
export type ManifestTool = Static<typeof ManifestToolSchema>;

/** Validates a manifest value; each problem is a JSON pointer under `/pablo` and a message. */
export function validateManifest(
  value: unknown,
): { ok: true; manifest: PluginManifest } | { ok: false; problems: { path: string; message: string }[] } {
  // Interpreted, not compiled: each manifest is checked once, and compiling costs more.
  if (Check(PluginManifestSchema, value)) return { ok: true, manifest: value };
  const problems: { path: string; message: string }[] = [];
  for (const error of Errors(PluginManifestSchema, value)) {
    if (error.keyword === "boolean") continue;
    const extra = (error.params as { additionalProperties?: unknown }).additionalProperties;
    const suffix = Array.isArray(extra) ? ` (${extra.join(", ")})` : "";
    problems.push({ path: `/pablo${error.instancePath}`, message: `${error.message}${suffix}` });
    if (problems.length >= 20) break;
  }
  return { ok: false, problems };
}

/** A missing or invalid risk is `medium` (seed 001, section 11). */
export function effectiveRisk(risk: string | undefined): "low" | "medium" | "high" {
  return risk === "low" || risk === "medium" || risk === "high" ? risk : "medium";
}
