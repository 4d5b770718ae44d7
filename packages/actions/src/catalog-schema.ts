import { StringRecord } from "@pablo/kernel";
import Type, { type Static } from "typebox";

/** The filters an action may declare; only declared ones are accepted as call inputs. */
export const FILTER_NAMES = ["match", "exclude", "tail", "head", "count"] as const;
export type FilterName = (typeof FILTER_NAMES)[number];

export const BUILTIN_NAMES = ["log_search", "mysql_query", "redis_command", "http_get"] as const;
export type BuiltinName = (typeof BUILTIN_NAMES)[number];

const Duration = Type.Union([Type.String({ maxLength: 16 }), Type.Integer({ minimum: 1 })], {
  description: "A duration: `500ms`, `10s`, `2m`, `1h`; a bare number is seconds.",
});
const Size = Type.Union([Type.String({ maxLength: 16 }), Type.Integer({ minimum: 1 })], {
  description: "A size: `4096`, `64KB`, `1MiB` (K and M are 1024-based); a bare number is bytes.",
});

/**
 * One argument of an exec array: a literal, a whole-element placeholder `{name}`, or an optional
 * group included only when every placeholder inside it has a value.
 */
export const ArgTemplate = Type.Union(
  [
    Type.String({
      maxLength: 4096,
      description: "A literal argument, or `{param}` standing for a whole argument.",
    }),
    Type.Object(
      {
        optional: Type.Array(Type.String({ maxLength: 4096 }), {
          minItems: 1,
          maxItems: 16,
          description: "Arguments included together, only when every placeholder among them has a value.",
        }),
      },
      { additionalProperties: false },
    ),
  ],
  { description: "An argument: a literal, a whole `{param}` placeholder or an `{optional: [...]}` group." },
);
export type ArgTemplate = Static<typeof ArgTemplate>;

const ExecArray = Type.Array(ArgTemplate, {
  minItems: 1,
  maxItems: 256,
  description: "An absolute executable path followed by its arguments; no shell ever reads it.",
});
const Fallbacks = Type.Array(Type.String({ minLength: 2, maxLength: 4096 }), {
  maxItems: 8,
  description: "Absolute paths tried in order only when the primary executable does not exist.",
});

export const ParamSpec = Type.Object(
  {
    type: Type.Union([Type.Literal("string"), Type.Literal("integer"), Type.Literal("boolean")], {
      description: "The parameter's JSON type.",
    }),
    description: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: "What the model is told the parameter means.",
    }),
    optional: Type.Optional(
      Type.Boolean({ description: "True when a call may leave it out (default false)." }),
    ),
    enum: Type.Optional(
      Type.Array(Type.String({ maxLength: 256 }), {
        minItems: 1,
        maxItems: 64,
        description: "The only values allowed.",
      }),
    ),
    pattern: Type.Optional(
      Type.String({ maxLength: 200, description: "An RE2 pattern the whole string value must match." }),
    ),
    max_length: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 4096, description: "Longest string value (default 256)." }),
    ),
    minimum: Type.Optional(Type.Integer({ description: "Smallest integer value." })),
    maximum: Type.Optional(Type.Integer({ description: "Largest integer value." })),
    allow_leading_dash: Type.Optional(
      Type.Boolean({
        description: "Accept string values starting with `-` (refused by default: option smuggling).",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ParamSpec = Static<typeof ParamSpec>;

export const StepSpec = Type.Object(
  {
    name: Type.String({ pattern: "^[a-z][a-z0-9_-]{0,47}$", description: "The step's name in the result." }),
    exec: ExecArray,
    exec_fallbacks: Type.Optional(Fallbacks),
  },
  { additionalProperties: false },
);
export type StepSpec = Static<typeof StepSpec>;

export const ScriptSpec = Type.Object(
  {
    file: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: "The script, relative to the catalog file's directory.",
    }),
    interpreter: Type.String({
      minLength: 2,
      maxLength: 4096,
      description: "Absolute path of the interpreter that runs it.",
    }),
    args: Type.Optional(
      Type.Array(ArgTemplate, { maxItems: 256, description: "Arguments after the script path." }),
    ),
    sha256: Type.Optional(
      Type.String({
        pattern: "^[0-9a-f]{64}$",
        description: "Digest of the script bytes, written by `pablo actions sign`.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const SignatureSpec = Type.Object(
  {
    key_id: Type.String({
      pattern: "^[0-9a-f]{16}$",
      description: "The signing key's ID (first 16 hex of SHA-256 of its SPKI).",
    }),
    value: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Base64 Ed25519 signature of the canonical action.",
    }),
  },
  { additionalProperties: false },
);

export const RedactSpec = Type.Object(
  {
    builtin: Type.Optional(
      Type.Array(Type.Literal("secrets"), { maxItems: 1, description: "Builtin redaction sets: `secrets`." }),
    ),
    patterns: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 32,
        description: "RE2 patterns whose matches are replaced by [REDACTED].",
      }),
    ),
  },
  { additionalProperties: false },
);
export type RedactSpec = Static<typeof RedactSpec>;

/** One action as a catalog file writes it. */
export const ActionSpec = Type.Object(
  {
    name: Type.String({
      pattern: "^[a-z][a-z0-9_]{0,47}$",
      description: "The action's name; the tool is `action.NAME`.",
    }),
    description: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: "What the model is told the action does.",
    }),
    risk: Type.Union(
      [Type.Literal("read"), Type.Literal("low"), Type.Literal("medium"), Type.Literal("high")],
      {
        description: "The tool's risk: `read` is low risk and does not mutate.",
      },
    ),
    params: Type.Optional(
      StringRecord(Type.String({ pattern: "^[a-z][a-z0-9_]{0,31}$" }), ParamSpec, {
        description: "The typed parameters a call gives, by name.",
      }),
    ),
    exec: Type.Optional(ExecArray),
    exec_fallbacks: Type.Optional(Fallbacks),
    steps: Type.Optional(
      Type.Array(StepSpec, { minItems: 1, maxItems: 16, description: "Named exec arrays run in order." }),
    ),
    on_error: Type.Optional(
      Type.Union([Type.Literal("continue"), Type.Literal("stop")], {
        description: "After a failed step: run the rest (`continue`) or skip them (`stop`, the default).",
      }),
    ),
    script: Type.Optional(ScriptSpec),
    timeout: Type.Optional(Duration),
    max_output: Type.Optional(Size),
    max_scan: Type.Optional(Size),
    filters: Type.Optional(
      Type.Array(Type.Unsafe<FilterName>(Type.Union(FILTER_NAMES.map((name) => Type.Literal(name)))), {
        maxItems: 5,
        description: "The output filters a call may use.",
      }),
    ),
    redact: Type.Optional(RedactSpec),
    allow_interpreter: Type.Optional(
      Type.Boolean({ description: "Allow an interpreter or shebang script as the program (warns)." }),
    ),
    builtin: Type.Optional(
      Type.Unsafe<BuiltinName>(
        Type.Union(
          BUILTIN_NAMES.map((name) => Type.Literal(name)),
          { description: "A builtin handler instead of a program." },
        ),
      ),
    ),
    builtin_config: Type.Optional(
      StringRecord(Type.String(), Type.Unknown(), {
        description: "The builtin's configuration; it can only narrow.",
      }),
    ),
    signature: Type.Optional(SignatureSpec),
  },
  { additionalProperties: false },
);
export type ActionSpec = Static<typeof ActionSpec>;
