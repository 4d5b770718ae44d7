import {
  type AuthorityLayer,
  defineLayer,
  type Kernel,
  type Session,
  type ToolVisibility,
} from "@pablo/kernel";
import Type, { type Static } from "typebox";
import { SubagentCode } from "../control/names.js";

/** A delegate's name: what the model passes to Task, and the key under `[options.agent.subagents]`. */
export const SUBAGENT_NAME_PATTERN = "^[a-z0-9][a-z0-9-]{0,47}$";

/**
 * The fields of a delegate besides its name, one schema for both places that declare one: a host's
 * {@link SubagentDefinitionSchema} and the deployment's `[options.agent.subagents.NAME]`.
 */
export const SubagentFieldsSchema = Type.Object(
  {
    description: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: "When to use this delegate.",
    }),
    tools: Type.Optional(
      Type.Union([Type.Literal("*"), Type.Array(Type.String())], {
        description:
          "Read, Glob, Grep, BrowserPreview, Bash, Edit, Write, or `*`. Default: Read, Glob, Grep.",
      }),
    ),
    instructions: Type.Optional(
      Type.String({ maxLength: 64 * 1024, description: "The delegate's instructions." }),
    ),
  },
  { additionalProperties: false },
);

/** A Task subagent as a deployment or host declares it. */
export const SubagentDefinitionSchema = Type.Object(
  {
    name: Type.String({ pattern: SUBAGENT_NAME_PATTERN, description: "Name the model passes to Task." }),
    ...SubagentFieldsSchema.properties,
  },
  { additionalProperties: false },
);
export type SubagentDefinition = Static<typeof SubagentDefinitionSchema>;

/** A definition with its tools resolved to native names. */
export interface ResolvedSubagent {
  readonly name: string;
  readonly description: string;
  readonly instructions: string | undefined;
  /** The seed names granted, for explanations. */
  readonly grants: readonly string[];
  /** Native tool names the delegate may call. */
  readonly tools: readonly string[];
}

export interface SubagentDiagnostic {
  readonly subagent: string;
  /** `SUBAGENT_DUPLICATE`: a second definition of a name; `SUBAGENT_TOOL_DROPPED`: a tool no delegate can be given. */
  readonly code: SubagentCode;
  /** The dropped tool name, for `SUBAGENT_TOOL_DROPPED`. */
  readonly tool?: string;
  readonly message: string;
}

/**
 * The only tools a delegate can be given (seed 001, 10.2), by seed name, with the native tools
 * each covers. Plugin tools, Skill, ToolSearch, new_context, the mode tools and Task are not
 * here, so no definition can assign them.
 */
export const ASSIGNABLE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  Read: ["fs.read", "fs.list"],
  Glob: ["fs.glob"],
  Grep: ["fs.search"],
  BrowserPreview: ["browser.preview"],
  Bash: ["shell.run"],
  Edit: ["fs.edit"],
  Write: ["fs.write"],
};

const READ_ONLY = ["Read", "Glob", "Grep"];

/** Native and provider names accepted as aliases of the seed names. */
const ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries(ASSIGNABLE_TOOLS).flatMap(([seed, natives]) => [
    [seed.toLowerCase(), seed] as const,
    ...natives.flatMap((n) => [[n, seed] as const, [n.replace(/[./]/g, "_"), seed] as const]),
  ]),
);

/** Resolves tool grants; unrecognized names are dropped with a diagnostic. Duplicate names keep the first. */
export function resolveSubagents(definitions: readonly SubagentDefinition[]): {
  items: ResolvedSubagent[];
  diagnostics: SubagentDiagnostic[];
} {
  const items: ResolvedSubagent[] = [];
  const diagnostics: SubagentDiagnostic[] = [];
  const seen = new Set<string>();
  for (const definition of definitions) {
    if (seen.has(definition.name)) {
      diagnostics.push({
        subagent: definition.name,
        code: SubagentCode.SUBAGENT_DUPLICATE,
        message: "a subagent with this name is already defined; ignored",
      });
      continue;
    }
    seen.add(definition.name);
    const all =
      definition.tools === "*" || (Array.isArray(definition.tools) && definition.tools.includes("*"));
    const declared = all ? Object.keys(ASSIGNABLE_TOOLS) : (definition.tools ?? []);
    const grants: string[] = [];
    for (const name of declared) {
      const seed = ASSIGNABLE_TOOLS[name] ? name : (ALIASES.get(name.toLowerCase()) ?? ALIASES.get(name));
      if (!seed) {
        diagnostics.push({
          subagent: definition.name,
          code: SubagentCode.SUBAGENT_TOOL_DROPPED,
          tool: name,
          message: `tool ${JSON.stringify(name)} cannot be given to a delegate (only Read, Glob, Grep, BrowserPreview, Bash, Edit, Write); dropped`,
        });
        continue;
      }
      if (!grants.includes(seed)) grants.push(seed);
    }
    const effective = grants.length > 0 ? grants : READ_ONLY;
    items.push({
      name: definition.name,
      description: definition.description,
      instructions: definition.instructions,
      grants: effective,
      tools: effective.flatMap((seed) => ASSIGNABLE_TOOLS[seed] ?? []),
    });
  }
  return { items, diagnostics };
}

/**
 * The authority layer of a delegate: an allow list of its tools, so everything else is denied
 * with rule `default` of layer `task.<name>`. It is stacked on the session's layers, so the
 * delegate's rights are its definition's intersected with the session's.
 */
export function delegateLayer(subagent: ResolvedSubagent): AuthorityLayer {
  return toolsLayer(`task.${subagent.name}`, `Task delegate ${subagent.name}`, subagent.tools);
}

/** An allow-list layer over native tool names. */
export function toolsLayer(id: string, description: string, tools: readonly string[]): AuthorityLayer {
  return defineLayer({
    id,
    description,
    tool: { default: "deny", allow: tools.map((tool) => ({ id: `${id}.${tool}`, match: tool })) },
  });
}

/** Opens the delegate's session over the parent's catalog: parent layers, then its own; shared budget. */
export function openDelegateSession(kernel: Kernel, parent: Session, subagent: ResolvedSubagent): Session {
  return kernel.openSession({
    catalog: parent.catalog,
    parent,
    layers: [delegateLayer(subagent)],
    requester: `task:${subagent.name}`,
  });
}

/** A delegate's effective authority: every catalog tool, visible or not, with the deciding rule. */
export function delegateAuthority(
  kernel: Kernel,
  parent: Session,
  subagent: ResolvedSubagent,
): ToolVisibility[] {
  return openDelegateSession(kernel, parent, subagent).visibility();
}
