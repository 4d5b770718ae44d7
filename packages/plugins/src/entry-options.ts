import Type, { type Static } from "typebox";

/** One `[options.plugins.NAME]` table of deployment.toml (NAME is the entry's name). */
export const PluginEntryOptionsSchema = Type.Object(
  {
    package: Type.String({
      minLength: 1,
      description:
        "An npm package name resolved from the distribution's node_modules, or a path (starting with . or /) to the package directory.",
    }),
    grants: Type.Array(Type.String({ minLength: 1 }), {
      uniqueItems: true,
      description:
        "What the deployment grants the plugin: permissions (agent.tool.register, agent.skill.register) and the effects its tools may use (net, fs.read, ...).",
    }),
    options: Type.Optional(
      Type.Unknown({
        description: "The plugin's own options, validated by the optionsSchema the plugin exports.",
      }),
    ),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3_600_000,
        description: "Per-call time limit for this plugin's tools (default 120000 ms).",
      }),
    ),
  },
  { additionalProperties: false },
);

export type PluginEntryOptions = Static<typeof PluginEntryOptionsSchema>;

/** One plugin the deployment lists: its entry name plus the table. */
export interface PluginEntry {
  readonly name: string;
  readonly package: string;
  readonly grants: readonly string[];
  readonly options?: unknown;
  readonly timeoutMs?: number;
}

export const DEFAULT_PLUGIN_TIMEOUT_MS = 120_000;
