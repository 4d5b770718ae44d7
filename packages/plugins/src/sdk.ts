import type { Access, Effect, Risk, ToolContext, ToolFailure, ToolResult } from "@pablo/kernel";
import type { Static, TObject, TSchema } from "typebox";

/**
 * One tool as a plugin author writes it. The manager turns it into a kernel tool named
 * `plugin.<pluginId>.<name>` (provider name `plugin_<pluginIdSafe>_<name>`), category `plugin`.
 */
export interface PluginTool<S extends TSchema = TSchema> {
  /** Short tool name, unique within the plugin: `^[a-zA-Z][a-zA-Z0-9_-]*$` (no dots). */
  readonly name: string;
  readonly description: string;
  /** One line for the on-demand catalog. */
  readonly summary: string;
  /** Closed typebox object schema; must equal the manifest's `inputSchema` for this tool. */
  readonly inputSchema: S;
  readonly outputSchema?: TSchema;
  /** Must equal the manifest's risk when both are valid. The manifest's risk is the one applied. */
  readonly risk?: Risk;
  /** Must equal the manifest's effects for this tool, and each must be granted by the deployment. */
  readonly effects: readonly Effect[];
  /** Whether calls change state; defaults to true so calls of one session are serialized. */
  readonly mutates?: boolean;
  /** Declares what a call will touch (paths, URLs) before it runs. Contract: changes no state. */
  accesses?(
    args: Static<S>,
    ctx: ToolContext,
  ): readonly Access[] | ToolFailure | Promise<readonly Access[] | ToolFailure>;
  execute(args: Static<S>, ctx: ToolContext): Promise<ToolResult>;
}

/** What a plugin's `setup` receives: its validated options and the registration calls it was granted. */
export interface PluginHost<O> {
  readonly pluginId: string;
  /** The deployment's `[options.plugins.NAME].options`, validated by the plugin's `optionsSchema`. */
  readonly options: O;
  /** The grants the deployment gave this plugin (`agent.tool.register`, `net`, ...). */
  readonly grants: readonly string[];
  /** Needs the `agent.tool.register` permission. The tool must be declared in the manifest. */
  registerTool(tool: PluginTool): void;
}

/** A plugin: an ID, the schema of its options and a setup that registers what it contributes. */
export interface PabloPlugin<O = unknown> {
  readonly kind: "pablo-plugin";
  readonly apiVersion: 1;
  readonly id: string;
  readonly optionsSchema?: TSchema;
  setup(host: PluginHost<O>): void | Promise<void>;
}

export interface PluginSpec<S extends TSchema> {
  /** Must equal the manifest's `id`. */
  readonly id: string;
  /** Closed typebox schema of the plugin's options; absent means the plugin takes none. */
  readonly optionsSchema?: S;
  setup(host: PluginHost<Static<S>>): void | Promise<void>;
}

/** The current plugin API version, written as `apiVersion` in every plugin object. */
export const PLUGIN_API_VERSION = 1;

/** Declares a plugin. Export the result as the package's default export. */
export function definePlugin<S extends TSchema = TObject>(spec: PluginSpec<S>): PabloPlugin<Static<S>> {
  return Object.freeze({
    kind: "pablo-plugin" as const,
    apiVersion: PLUGIN_API_VERSION,
    id: spec.id,
    ...(spec.optionsSchema ? { optionsSchema: spec.optionsSchema } : {}),
    setup: spec.setup,
  });
}

/** Identity helper that keeps `args` typed from the schema. */
export function defineTool<S extends TSchema>(tool: PluginTool<S>): PluginTool<S> {
  return tool;
}

/** True for an object shaped like {@link definePlugin}'s result, from any copy of this package. */
export function isPabloPlugin(value: unknown): value is PabloPlugin {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return v["kind"] === "pablo-plugin" && typeof v["id"] === "string" && typeof v["setup"] === "function";
}
