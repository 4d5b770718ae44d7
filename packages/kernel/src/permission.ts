import Type, { type Static } from "typebox";
import type { Access } from "./access.js";
import { StringRecord } from "./string-record.js";
import type { Effect, Risk, ToolCategory } from "./tool.js";

/**
 * How admitted high-risk calls are approved. `read-only` is the profile of seed 003: reads and
 * inspection run, anything with another effect is denied unless that effect is granted.
 */
export type PermissionMode = "ask" | "accept-edits" | "auto" | "read-only";

export const PERMISSION_MODES: readonly PermissionMode[] = ["ask", "accept-edits", "auto", "read-only"];

export type PermissionAnswer = "allow-once" | "allow-session" | "deny";

/** What a broker shows the user. Never includes the permission mode: the model never learns it. */
export interface PermissionRequest {
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  readonly providerName: string;
  readonly risk: Risk;
  readonly category: ToolCategory;
  /** Redacted, bounded preview of the arguments. */
  readonly argsPreview: string;
  /**
   * The arguments themselves, redacted, for a broker that shows them whole (the preview is cut at
   * 2048 characters, which can hide the tail of a command). Absent for a request that is not a call.
   */
  readonly args?: unknown;
  /** Why a prompt is needed, for example "high-risk process tool" or "path outside the roots". */
  readonly reason: string;
  /** The delegate or child asking, when one is. */
  readonly requester: string | undefined;
  readonly deadline: number;
}

/**
 * Implemented by the host: a terminal prompt, an editor card, an MCP elicitation. Contract: must
 * settle, and should settle promptly once `signal` aborts; the kernel treats no answer by the
 * deadline, a rejection and an abort all as deny.
 */
export interface PermissionBroker {
  request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
  /**
   * Asks the user a question on behalf of a tool server (MCP elicitation). Optional: a host that
   * cannot show a form leaves it out, and then no server is told it may ask. Same contract as
   * `request`: must settle, promptly once `signal` aborts; the caller treats a rejection as cancel.
   */
  elicit?(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer>;
}

const fieldText = {
  title: Type.Optional(Type.String({ description: "Short label shown for the field." })),
  description: Type.Optional(Type.String({ description: "Longer help shown under the label." })),
};

const fieldOptions = {
  options: Type.Array(Type.String({ description: "One value the user may pick." }), {
    description: "The values offered, in order.",
  }),
  optionTitles: Type.Optional(
    Type.Array(Type.String({ description: "Label of the option at the same index." }), {
      description: "Labels shown instead of the raw values.",
    }),
  ),
};

/** One field of a question: the restricted flat form MCP elicitation allows (no nesting). */
export const ElicitationFieldSchema = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal("string", { description: "Free text." }),
        ...fieldText,
        minLength: Type.Optional(Type.Integer({ minimum: 0, description: "Fewest characters accepted." })),
        maxLength: Type.Optional(Type.Integer({ minimum: 0, description: "Most characters accepted." })),
        format: Type.Optional(
          Type.Union(
            [Type.Literal("email"), Type.Literal("uri"), Type.Literal("date"), Type.Literal("date-time")],
            { description: "A shape the text must have." },
          ),
        ),
        default: Type.Optional(Type.String({ description: "Kept when the user gives no value." })),
      },
      { description: "A text field." },
    ),
    Type.Object(
      {
        type: Type.Union([Type.Literal("number"), Type.Literal("integer")], {
          description: "Any number, or whole numbers only.",
        }),
        ...fieldText,
        minimum: Type.Optional(Type.Number({ description: "Smallest value accepted." })),
        maximum: Type.Optional(Type.Number({ description: "Largest value accepted." })),
        default: Type.Optional(Type.Number({ description: "Kept when the user gives no value." })),
      },
      { description: "A numeric field." },
    ),
    Type.Object(
      {
        type: Type.Literal("boolean", { description: "Yes or no." }),
        ...fieldText,
        default: Type.Optional(Type.Boolean({ description: "Kept when the user gives no value." })),
      },
      { description: "A yes/no field." },
    ),
    Type.Object(
      {
        type: Type.Literal("enum", { description: "One of a fixed list of strings." }),
        ...fieldText,
        ...fieldOptions,
        default: Type.Optional(Type.String({ description: "Kept when the user gives no value." })),
      },
      { description: "A choice among fixed strings." },
    ),
    Type.Object(
      {
        type: Type.Literal("multiselect", { description: "Any number of a fixed list of strings." }),
        ...fieldText,
        ...fieldOptions,
        minItems: Type.Optional(Type.Integer({ minimum: 0, description: "Fewest values picked." })),
        maxItems: Type.Optional(Type.Integer({ minimum: 0, description: "Most values picked." })),
        default: Type.Optional(
          Type.Array(Type.String({ description: "A value picked unless the user changes it." }), {
            description: "Kept when the user gives no value.",
          }),
        ),
      },
      { description: "A choice of several among fixed strings." },
    ),
  ],
  { description: "One question field." },
);
export type ElicitationField = Static<typeof ElicitationFieldSchema>;

/** What a broker shows for an elicitation: already checked to be flat and within bounds. */
export const ElicitationRequestSchema = Type.Object(
  {
    server: Type.String({ description: "The tool server asking, for example an MCP server's name." }),
    message: Type.String({ description: "The server's question, bounded in length." }),
    fields: StringRecord(Type.String(), ElicitationFieldSchema, {
      description: "The fields asked for, by property name, in the server's order.",
    }),
    required: Type.Array(Type.String({ description: "A field name." }), {
      description: "Fields that must have a value (after defaults) for an accept.",
    }),
    deadline: Type.Number({ description: "Epoch milliseconds after which the question is declined." }),
  },
  { description: "A question a tool server asks the user." },
);
export type ElicitationRequest = Static<typeof ElicitationRequestSchema>;

/** One answered value: text, a number, yes/no, or the picks of a multiselect. */
export const ElicitationValueSchema = Type.Union(
  [Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.String())],
  { description: "One answered field's value." },
);
export type ElicitationValue = Static<typeof ElicitationValueSchema>;

export const ElicitationAnswerSchema = Type.Union(
  [
    Type.Object(
      {
        action: Type.Literal("accept", { description: "The user submitted the form." }),
        content: StringRecord(Type.String(), ElicitationValueSchema, {
          description: "Values given; fields left out are filled from their defaults.",
        }),
      },
      { description: "The user answered." },
    ),
    Type.Object(
      { action: Type.Literal("decline", { description: "The user refused to answer." }) },
      { description: "The user declined." },
    ),
    Type.Object(
      { action: Type.Literal("cancel", { description: "The user dismissed the question." }) },
      { description: "The question was dismissed without a choice." },
    ),
  ],
  { description: "The user's answer to an elicitation." },
);
export type ElicitationAnswer = Static<typeof ElicitationAnswerSchema>;

/** The read-only profile's grants: effects allowed despite the profile. */
export interface PermissionProfile {
  readonly mode: PermissionMode;
  readonly grants?: readonly Effect[];
  /** Milliseconds to wait for an answer; 120 s by default. */
  readonly timeoutMs?: number;
}

export const PERMISSION_TIMEOUT_MS = 120_000;

const READ_ONLY_EFFECTS: ReadonlySet<string> = new Set(["fs.read", "ui"]);

/** What the permission stage does with a call that policy admitted. */
export type PermissionNeed =
  | { readonly need: "none"; readonly rule: string }
  | { readonly need: "ask"; readonly rule: string; readonly reason: string }
  | { readonly need: "deny"; readonly rule: string; readonly reason: string };

export interface PermissionSubject {
  readonly risk: Risk;
  readonly category: ToolCategory;
  readonly effects: readonly Effect[];
  readonly accesses: readonly Access[];
}

/**
 * Pure decision of seed 001 section 6: low risk runs; writes are confirmed under `ask` and
 * automatic under `accept-edits` and `auto`; processes, plugins and medium-risk tools are
 * confirmed except under `auto` (plugin tools whatever risk their manifest claims); an explicit outside path is confirmed except under `auto`;
 * writes that land only in the scratch root never prompt.
 */
export function permissionNeed(profile: PermissionProfile, subject: PermissionSubject): PermissionNeed {
  const { mode } = profile;
  if (mode === "read-only") {
    const granted = new Set(profile.grants ?? []);
    const blocked = subject.effects.filter((e) => !READ_ONLY_EFFECTS.has(e) && !granted.has(e));
    if (blocked.length > 0) {
      return {
        need: "deny",
        rule: "permission.read-only",
        reason: `the read-only profile denies ${blocked.join(", ")} (grant the effect explicitly to allow it)`,
      };
    }
    return { need: "none", rule: "permission.read-only" };
  }
  const external = subject.accesses.some((a) => "root" in a && a.root === "external");
  if (external && mode !== "auto") {
    return {
      need: "ask",
      rule: `permission.${mode}.external-path`,
      reason: "explicit path outside the session roots",
    };
  }
  const writes = subject.accesses.filter((a) => a.dimension === "fs.write");
  if (
    subject.category === "write" &&
    writes.length > 0 &&
    writes.every((a) => "root" in a && a.root === "scratch")
  ) {
    return { need: "none", rule: "permission.scratch" };
  }
  // Seed 001's matrix confirms plugin tools under ask and accept-edits whatever their manifest
  // says: a third party's own risk label is not the host's judgement.
  if (subject.risk === "low" && subject.category !== "plugin") {
    return { need: "none", rule: "permission.low-risk" };
  }
  if (mode === "auto") return { need: "none", rule: "permission.auto" };
  if (subject.category === "write" && subject.risk === "high" && mode === "accept-edits") {
    return { need: "none", rule: "permission.accept-edits" };
  }
  return {
    need: "ask",
    rule: `permission.${mode}.${subject.risk}`,
    reason: `${subject.risk}-risk ${subject.category} tool`,
  };
}
