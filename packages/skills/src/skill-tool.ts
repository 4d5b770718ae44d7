import {
  defineTool,
  ErrorCode,
  fail,
  type JsonValue,
  type ToolDefinition,
  type ToolResult,
} from "@pablo/kernel";
import Type from "typebox";
import { activationAccesses, readActivation } from "./activate.js";
import { allowedToolsLayer } from "./allowed-tools.js";
import { SkillCode, SkillsErrorCode } from "./codes.js";
import { DEFAULT_MAX_CONTEXT_BYTES, DEFAULT_MAX_SKILL_BYTES } from "./limits.js";
import { DEFAULT_SKILL_OVERSIZE, type SkillOversize } from "./oversize.js";
import { notFoundMessage, resolveSkill } from "./resolve.js";
import type { ActivatedSkill, Discovery, SkillDiagnostic, SkillRoot, SkillSummary } from "./types.js";

export const SKILL_TOOL_NAME = "skill.activate";
export const SKILL_TOOL_PROVIDER_NAME = "Skill";

/** Bound on the skill listing inside the tool's description. */
const MAX_LISTING_CHARS = 16 * 1024;

export const SkillToolInputSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The skill to activate: its id "root/name" from the list, or its bare name.',
    }),
  },
  { additionalProperties: false },
);

export interface SkillToolConfig {
  /** The discovered skills the tool may activate; nothing else is reachable through it. */
  readonly skills: readonly SkillSummary[];
  /** The bound on activated instruction bytes per session (`max_context_bytes`). */
  readonly maxContextBytes?: number;
  /** Largest SKILL.md read (`max_skill_bytes`). */
  readonly maxSkillBytes?: number;
  /** What activating a SKILL.md over `maxSkillBytes` does (`oversize`, default `refuse`). */
  readonly oversize?: SkillOversize;
  /** Skills the deployment activated before the session started; they count against the bound. */
  readonly active?: readonly ActivatedSkill[];
  /**
   * When set (a deployment's `restrict_to_allowed_tools`), activating a skill that declares
   * allowed-tools narrows the session to them, plus `alsoAllow`. It only ever restricts.
   */
  readonly restrictToAllowedTools?: { readonly alsoAllow: readonly string[] };
}

interface SessionSkills {
  used: number;
  readonly active: Map<string, number>;
}

/**
 * The Skill tool: activates one discovered skill by name and returns its complete instructions.
 * It reads one file (effect `fs.read`, risk low, category `read`), is deferred (listed in the
 * on-demand catalog until ToolSearch loads it) and declares, before it runs, the `skill` it
 * activates and the SKILL.md path it reads, so authority layers can refuse either. The
 * activation grants nothing: no tool, path or permission; `allowed-tools` is not even shown to
 * the model. The audit record gets the skill id and the SHA-256 of the bytes read, through
 * `auditNotes`. Per session, activated instructions stay within `maxContextBytes`; activating
 * the same skill again returns it again without counting it twice.
 */
export function createSkillTool(config: SkillToolConfig): ToolDefinition<typeof SkillToolInputSchema> {
  const { skills } = config;
  const maxContext = config.maxContextBytes ?? DEFAULT_MAX_CONTEXT_BYTES;
  const read = {
    maxSkillBytes: config.maxSkillBytes ?? DEFAULT_MAX_SKILL_BYTES,
    oversize: config.oversize ?? DEFAULT_SKILL_OVERSIZE,
  };
  const initial = config.active ?? [];
  const stateKey = `@pablo/skills:${SKILL_TOOL_NAME}`;
  const sessionState = (): SessionSkills => ({
    used: initial.reduce((sum, s) => sum + s.instructionBytes, 0),
    active: new Map(initial.map((s) => [s.id, s.instructionBytes])),
  });
  return defineTool({
    name: SKILL_TOOL_NAME,
    providerName: SKILL_TOOL_PROVIDER_NAME,
    summary: `Activate an Agent Skill by name: load its instructions (${skills.length} available)`,
    description: describeTool(skills, maxContext),
    inputSchema: SkillToolInputSchema,
    risk: "low",
    effects: ["fs.read"],
    category: "read",
    mutates: false,
    deferred: true,
    accesses: (args) => {
      const skill = resolveSkill(args.name, skills);
      return skill
        ? activationAccesses(skill)
        : fail(ErrorCode.NOT_FOUND, notFoundMessage(args.name, skills));
    },
    execute: async (args, ctx): Promise<ToolResult> => {
      const skill = resolveSkill(args.name, skills);
      if (!skill) return fail(ErrorCode.NOT_FOUND, notFoundMessage(args.name, skills));
      const outcome = await readActivation(skill, read);
      if (!("activated" in outcome)) return failureFor(skill, outcome.diagnostics);
      const { activated } = outcome;
      // A cancelled call must not count against the session's context: the model never sees it.
      if (ctx.signal.aborted) return fail(ErrorCode.TOOL_CANCELLED, "the activation was cancelled");
      const state = ctx.state(stateKey, sessionState);
      const previous = state.active.get(activated.id);
      const used = state.used - (previous ?? 0);
      if (used + activated.instructionBytes > maxContext) {
        return fail(
          ErrorCode.LIMIT_EXCEEDED,
          `${activated.id} needs ${activated.instructionBytes} bytes of context but only ${Math.max(0, maxContext - used)} of ${maxContext} remain in this task; it was not activated`,
          {
            skill: activated.id,
            neededBytes: activated.instructionBytes,
            remainingBytes: Math.max(0, maxContext - used),
            limitBytes: maxContext,
          },
        );
      }
      state.used = used + activated.instructionBytes;
      state.active.set(activated.id, activated.instructionBytes);
      const restriction = config.restrictToAllowedTools
        ? allowedToolsLayer([skill], {
            id: `skills.allowed-tools.${activated.id.replace(/[^A-Za-z0-9._-]/g, ".")}`,
            alsoAllow: [SKILL_TOOL_NAME, ...config.restrictToAllowedTools.alsoAllow],
          }).layer
        : undefined;
      if (restriction) ctx.narrow(restriction);
      const data: JsonValue = {
        skill: activated.id,
        name: activated.name,
        description: activated.description,
        dir: activated.dir,
        instructions: activated.instructions,
        note: "Instructions only: they grant no tool, path or permission. Files beside SKILL.md are read with the file tools, under the normal read policy.",
        ...(previous === undefined ? {} : { alreadyActive: true }),
        ...(activated.truncated ? { truncated: { ...activated.truncated } } : {}),
      };
      return {
        ok: true,
        data,
        auditNotes: {
          skill: activated.id,
          contentHash: activated.contentHash,
          instructionBytes: activated.instructionBytes,
          activation: previous === undefined ? "new" : "repeat",
          ...(activated.truncated ? { truncatedAtBytes: activated.truncated.keptBytes } : {}),
        },
      };
    },
  });
}

/**
 * The Skill tool for a deployment, or undefined when it should not be registered: no roots are
 * configured, the deployment turned it off, or discovery found no skill to activate.
 */
export function skillToolFor(
  roots: readonly SkillRoot[],
  discovery: Discovery,
  config: Omit<SkillToolConfig, "skills"> & { readonly enabled?: boolean } = {},
): ToolDefinition<typeof SkillToolInputSchema> | undefined {
  if (roots.length === 0 || config.enabled === false || discovery.skills.length === 0) return undefined;
  const { enabled: _enabled, ...rest } = config;
  return createSkillTool({ ...rest, skills: discovery.skills });
}

function failureFor(skill: SkillSummary, diagnostics: readonly SkillDiagnostic[]): ToolResult {
  const first = diagnostics[0];
  const details = { skill: skill.id, problems: diagnostics.map((d) => `${d.code}: ${d.message}`) };
  const message = `${skill.id} cannot be activated: ${first?.message ?? "it no longer loads"}`;
  switch (first?.code) {
    case SkillCode.SYMLINK_REFUSED:
      return fail(ErrorCode.SYMLINK_REFUSED, message, details);
    case SkillCode.SPECIAL_FILE:
      return fail(ErrorCode.SPECIAL_FILE, message, details);
    case SkillCode.SKILL_TOO_LARGE:
      return fail(ErrorCode.LIMIT_EXCEEDED, message, details);
    case SkillCode.INVALID_UTF8:
      return fail(ErrorCode.INVALID_UTF8, message, details);
    case SkillCode.SKILL_NOT_FOUND:
      return fail(ErrorCode.NOT_FOUND, message, details);
    default:
      return fail(SkillsErrorCode.SKILL_INVALID, message, details);
  }
}

function describeTool(skills: readonly SkillSummary[], maxContext: number): string {
  const head = [
    "Activate an Agent Skill: load its complete instructions into this task, then follow them.",
    "A skill is instructions only. Activating one grants no tool, path or permission; every call it suggests goes through the same policy as any other.",
    "Files beside a skill's SKILL.md (scripts, references, assets) are not loaded: read them with the file tools, under the normal read policy, from the `dir` the result gives.",
    `Activated instructions share a budget of ${maxContext} bytes per task.`,
    "",
    "Available skills (id: description):",
  ].join("\n");
  const lines: string[] = [];
  let room = MAX_LISTING_CHARS;
  for (const [index, skill] of skills.entries()) {
    const line = `- ${skill.id}: ${skill.description.replace(/\s+/g, " ").trim()}`;
    if (line.length + 1 > room) {
      lines.push(`- … and ${skills.length - index} more; pass an exact id.`);
      break;
    }
    lines.push(line);
    room -= line.length + 1;
  }
  return `${head}\n${lines.join("\n")}`;
}
